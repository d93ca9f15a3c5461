package io.backpressure.client;

import io.backpressure.core.AdmissionRequest;
import io.backpressure.core.Cost;
import io.backpressure.core.Gate;
import io.backpressure.core.Grant;
import io.backpressure.core.RejectReason;
import io.backpressure.temporal.ActivityGate;
import io.backpressure.temporal.Backpressure;
import io.temporal.activity.Activity;
import io.temporal.failure.ApplicationFailure;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * Gated client calls made inside Temporal activities: admission runs through {@link
 * ActivityGate#admit}, so a deferral ends the activity with the same {@value Backpressure#DEFERRED}
 * failure {@code ActivityGate.call} raises (the slot is freed at once and the wait happens on a
 * durable timer, as the temporal module's README describes), and expiry and rejection raise its
 * {@value Backpressure#EXPIRED} and {@value Backpressure#REJECTED} failures.
 *
 * <p>Make the SDK call on the activity's own thread. Needs {@code backpressure-temporal} on the
 * class path. Thread-safe; one {@link ActivityGate} is built per gate on first use.
 */
public final class ActivityAdmitter implements Admitter {

  private final Function<Gate, ActivityGate> factory;
  private final Map<Gate, ActivityGate> activityGates = new ConcurrentHashMap<>();

  private ActivityAdmitter(Function<Gate, ActivityGate> factory) {
    this.factory = factory;
  }

  /**
   * Each gate behind {@link ActivityGate#of(Gate)}: default bound, every deferral frees the slot.
   */
  public static ActivityAdmitter create() {
    return new ActivityAdmitter(ActivityGate::of);
  }

  /**
   * Each gate behind the {@link ActivityGate} that {@code factory} builds for it, for example with
   * a {@code maxWait}.
   */
  public static ActivityAdmitter create(Function<Gate, ActivityGate> factory) {
    return new ActivityAdmitter(Objects.requireNonNull(factory, "factory"));
  }

  /**
   * {@code gate} behind an {@link ActivityGate} whose server-timed wait is bounded by {@code
   * maxWait}, built at once so that a bad bound fails here ({@link ActivityGate.Builder#maxWait}
   * names the range); for {@link GatedCall}, whose bytecode then names no Temporal type.
   */
  static Admitter withMaxWait(Gate gate, Duration maxWait) {
    ActivityGate built = ActivityGate.builder(gate).maxWait(maxWait).build();
    return new ActivityAdmitter(
        other -> other == gate ? built : ActivityGate.builder(other).maxWait(maxWait).build());
  }

  /** Whether this thread runs a Temporal activity (the SDK's execution context is set). */
  static boolean onActivityThread() {
    try {
      Activity.getExecutionContext();
      return true;
    } catch (IllegalStateException notInActivity) {
      return false;
    }
  }

  /** True: a deferral ends the activity's attempt, and a later attempt sends the call anew. */
  @Override
  public boolean defersToALaterAttempt() {
    return true;
  }

  @Override
  public Grant admit(Gate gate, AdmissionRequest request) {
    return activityGate(gate).admit(request);
  }

  @Override
  public void release(Gate gate, Grant grant, Cost actual) {
    activityGate(gate).release(grant, actual);
  }

  /**
   * A non-retryable {@value Backpressure#REJECTED} failure with details {@code [reason, message]}.
   */
  @Override
  public RuntimeException refused(RejectReason reason, @Nullable String message) {
    return ApplicationFailure.newNonRetryableFailure(
        "admission rejected (" + reason + "): " + message,
        Backpressure.REJECTED,
        reason.name(),
        message);
  }

  /**
   * A non-retryable {@value Backpressure#EXPIRED} failure, as {@code ActivityGate} raises for a
   * call the gate answers {@code Expired}, with details {@code [0, 0]}: the call waited for nothing
   * and has no turn to wait for.
   */
  @Override
  public RuntimeException expired(String target, String message) {
    return ApplicationFailure.newBuilder()
        .setType(Backpressure.EXPIRED)
        .setMessage("expired at " + target + ": " + message)
        .setDetails(0L, 0L)
        .setNonRetryable(true)
        .build();
  }

  private ActivityGate activityGate(Gate gate) {
    return activityGates.computeIfAbsent(gate, factory);
  }
}
