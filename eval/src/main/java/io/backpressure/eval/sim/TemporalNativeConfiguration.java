package io.backpressure.eval.sim;

import io.backpressure.eval.workload.Workload;

/**
 * {@code tn}: Temporal's matching-side throttle (paper's Mode B). The task queue dispatches at most
 * {@code requests_per_s} activities per second (token bucket, burst 1), the waiting ones in priority
 * order (P1 first, then arrival); inside the activity, 429s are retried exactly like {@code naive}
 * (a retry inside the activity is not a new dispatch, so the throttle does not see it). Request-only:
 * it never sees tokens, and with no request cap it only orders by priority.
 */
public final class TemporalNativeConfiguration implements Configuration {
  /** The dispatch rate when the workload caps no requests: in effect, no throttle. */
  private static final double UNTHROTTLED_PER_S = 1e12;

  @Override
  public String name() {
    return "tn";
  }

  @Override
  public Dispatch dispatch(Workload workload) {
    Double cap = workload.upstream().requestsPerS();
    return Dispatch.throttled(cap == null ? UNTHROTTLED_PER_S : cap);
  }

  @Override
  public ActivityBehaviour behaviour(Workload workload, ActivityContext context) {
    return call -> SdkRetry.untilOk(context, call, () -> context.succeed(call));
  }
}
