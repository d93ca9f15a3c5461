package io.backpressure.temporal;

import io.backpressure.core.Admission;
import io.backpressure.core.AdmissionRequest;
import io.backpressure.core.Cost;
import io.backpressure.core.Gate;
import io.backpressure.core.Grant;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A gate that defers one tenant by a fixed Δ and admits everyone else: for properties that are
 * about where the wait happens, not about how the gate decides. Deferred calls are admitted when
 * they present their booking, unless {@code always} is set.
 */
final class ScriptedGate implements Gate {
  private final String deferredTenant;
  private final Duration delta;
  private final boolean always;
  private final AtomicLong ids = new AtomicLong();
  private final Set<String> open = ConcurrentHashMap.newKeySet();

  private ScriptedGate(String deferredTenant, Duration delta, boolean always) {
    this.deferredTenant = deferredTenant;
    this.delta = delta;
    this.always = always;
  }

  /** Defers {@code tenant}'s first attempt of each call by {@code delta}. */
  static ScriptedGate deferOnce(String tenant, Duration delta) {
    return new ScriptedGate(tenant, delta, false);
  }

  /** Defers every attempt of {@code tenant} by {@code delta}. */
  static ScriptedGate deferAlways(String tenant, Duration delta) {
    return new ScriptedGate(tenant, delta, true);
  }

  @Override
  public String target() {
    return "scripted";
  }

  @Override
  public Admission admit(AdmissionRequest request) {
    long id = ids.incrementAndGet();
    if (request.tenant().equals(deferredTenant) && (always || request.booking() == null)) {
      return new Admission.Deferred(delta, "booking-" + id);
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
