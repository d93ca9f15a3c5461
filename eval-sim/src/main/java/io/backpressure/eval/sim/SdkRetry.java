package io.backpressure.eval.sim;

/**
 * The provider SDK's retry, run inside the activity: send; on a 429 or a 500 sleep on the slot for
 * {@link TimeModel#sdkBackoffNanos} and send again, with unlimited attempts. The slot is held
 * throughout.
 */
public final class SdkRetry {
  private SdkRetry() {}

  /** Sends {@code call} until it gets a 200, then runs {@code onOk}. */
  static void untilOk(ActivityContext context, SimCall call, Runnable onOk) {
    context.send(
        call,
        reply -> {
          if (reply.ok()) {
            onOk.run();
          } else {
            long sleep =
                TimeModel.sdkBackoffNanos(
                    call.rejections, reply.retryAfterNanos(), context.jitter());
            context.after(call, sleep, () -> untilOk(context, call, onOk));
          }
        });
  }
}
