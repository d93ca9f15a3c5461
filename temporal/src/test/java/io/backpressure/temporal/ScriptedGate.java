package io.backpressure.temporal;

import io.backpressure.core.Admission;
import io.backpressure.core.AdmissionRequest;
import io.backpressure.core.Cost;
import io.backpressure.core.Gate;
import io.backpressure.core.Grant;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A gate that defers one tenant and admits everyone else: for properties that are about where the
 * wait happens, not about how the gate decides. Deferred calls are admitted when they present their
 * booking, unless {@code always} is set. The n-th deferral of the tenant is by the n-th Δ given,
 * the last Δ repeating.
 */
final class ScriptedGate implements Gate {
  private final String deferredTenant;
  private final List<Duration> deltas;
  private final boolean always;
  private final AtomicLong ids = new AtomicLong();
  private final AtomicInteger deferrals = new AtomicInteger();
  private final Set<String> open = ConcurrentHashMap.newKeySet();

  private ScriptedGate(String deferredTenant, List<Duration> deltas, boolean always) {
    this.deferredTenant = deferredTenant;
    this.deltas = deltas;
    this.always = always;
  }

  /** Defers {@code tenant}'s first attempt of each call by {@code delta}. */
  static ScriptedGate deferOnce(String tenant, Duration delta) {
    return new ScriptedGate(tenant, List.of(delta), false);
  }

  /** Defers every attempt of {@code tenant} by {@code delta}. */
  static ScriptedGate deferAlways(String tenant, Duration delta) {
    return new ScriptedGate(tenant, List.of(delta), true);
  }

  /**
   * Defers every attempt of {@code tenant}: the first by {@code first}, the second by the first of
   * {@code then}, and so on, the last Δ repeating.
   */
  static ScriptedGate deferEach(String tenant, Duration first, Duration... then) {
    List<Duration> deltas = new ArrayList<>();
    deltas.add(first);
    deltas.addAll(Arrays.asList(then));
    return new ScriptedGate(tenant, List.copyOf(deltas), true);
  }

  @Override
  public String target() {
    return "scripted";
  }

  @Override
  public Admission admit(AdmissionRequest request) {
    long id = ids.incrementAndGet();
    if (request.tenant().equals(deferredTenant) && (always || request.booking() == null)) {
      int n = deferrals.getAndIncrement();
      return new Admission.Deferred(deltas.get(Math.min(n, deltas.size() - 1)), "booking-" + id);
    }
    String grant = "grant-" + id;
    open.add(grant);
    return new Admission.Admitted(
        new Grant(grant, request.tenant(), request.priority(), request.cost(), false));
  }

  @Override
  public boolean release(Grant grant, Cost actual) {
    return open.remove(grant.id());
  }
}
