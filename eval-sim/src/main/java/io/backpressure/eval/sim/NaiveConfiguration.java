package io.backpressure.eval.sim;

import io.backpressure.eval.workload.Workload;

/**
 * {@code naive}: the provider SDK's retry inside the activity (paper's Mode A). Activities take
 * slots first come, first served; on a 429 the activity sleeps on its slot (the longer of
 * retry-after and full-jitter exponential backoff) and retries, with unlimited attempts.
 */
final class NaiveConfiguration implements Configuration {

  @Override
  public String name() {
    return "naive";
  }

  @Override
  public ActivityBehaviour behaviour(Workload workload, ActivityContext context) {
    return call -> SdkRetry.untilOk(context, call, () -> context.succeed(call));
  }
}
