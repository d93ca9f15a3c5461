package io.backpressure.integration;

import io.backpressure.client.GateContext;
import io.backpressure.core.Cost;
import io.backpressure.core.Gate;
import io.backpressure.temporal.ActivityGate;
import io.backpressure.temporal.GatedRequest;
import io.temporal.activity.Activity;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.function.Function;

/**
 * The bridge to {@link ActivityGate}, loaded only when the {@code backpressure-temporal} module and
 * the Temporal SDK are on the class path ({@link #available()} checks without loading this class's
 * Temporal references).
 */
final class TemporalActivities {
  private final ActivityGate activityGate;

  private TemporalActivities(ActivityGate activityGate) {
    this.activityGate = activityGate;
  }

  static boolean available() {
    try {
      Class.forName(
          "io.backpressure.temporal.ActivityGate",
          false,
          TemporalActivities.class.getClassLoader());
      Class.forName(
          "io.temporal.activity.Activity", false, TemporalActivities.class.getClassLoader());
      return true;
    } catch (ClassNotFoundException | LinkageError e) {
      return false;
    }
  }

  static TemporalActivities of(Gate gate, Duration maxWait) {
    return new TemporalActivities(ActivityGate.builder(gate).maxWait(maxWait).build());
  }

  /** Whether this thread runs a Temporal activity (the SDK's execution context is set). */
  boolean inActivity() {
    try {
      Activity.getExecutionContext();
      return true;
    } catch (IllegalStateException notInActivity) {
      return false;
    }
  }

  /**
   * {@link ActivityGate#call(GatedRequest, Callable, Function)}: the booking and the wait limit
   * come from the activity's headers and retry state, not from the context, exactly as for any
   * gated activity.
   */
  <R> R call(
      GateContext context,
      Cost estimate,
      Long maxTokens,
      Callable<R> call,
      Function<? super R, Cost> usage) {
    GatedRequest request =
        maxTokens == null
            ? GatedRequest.of(context.tenant(), context.priority(), estimate)
            : GatedRequest.of(context.tenant(), context.priority(), estimate, maxTokens);
    return activityGate.call(
        request,
        call,
        reply -> {
          Cost actual = usage.apply(reply);
          return actual == null ? estimate : actual;
        });
  }
}
