package io.backpressure.eval.sim;

import io.backpressure.eval.workload.Workload;

/**
 * {@code tn}: Temporal's matching-side throttle (paper's Mode B). The task queue dispatches at most
 * {@code requests_per_s} activities per second (token bucket, burst 1), the waiting ones in
 * priority order (P1 first, then arrival); inside the activity, 429s are retried exactly like
 * {@code naive} (a retry inside the activity is not a new dispatch, so the throttle does not see
 * it). Request-only: it never sees tokens, and with no request cap it only orders by priority.
 */
public final class TemporalNativeConfiguration implements Configuration {
  /** The dispatch rate when the workload caps no requests: in effect, no throttle. */
  private static final double UNTHROTTLED_PER_S = 1e12;

  @Override
  public String name() {
    return "tn";
  }

  /**
   * The throttle, the one model of both modes (the simulator's {@link Dispatch#throttled} and the
   * real worker's activities-per-second limit): the request cap, in activities per second, or null
   * when the workload caps no requests (no throttle).
   */
  public static Double dispatchPerSecond(Workload workload) {
    return workload.upstream().requestsPerS();
  }

  /**
   * The task-queue priority of class rank {@code classRank} (0 is the highest): Temporal's {@code
   * Priority.priorityKey}, where 1 is the highest; the simulator's throttled dispatch orders by the
   * same rank.
   */
  public static int priorityKey(int classRank) {
    return classRank + 1;
  }

  @Override
  public Dispatch dispatch(Workload workload) {
    Double cap = dispatchPerSecond(workload);
    return Dispatch.throttled(cap == null ? UNTHROTTLED_PER_S : cap);
  }

  @Override
  public ActivityBehaviour behaviour(Workload workload, ActivityContext context) {
    return call -> SdkRetry.untilOk(context, call, () -> context.succeed(call));
  }
}
