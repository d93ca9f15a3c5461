package io.backpressure.temporal;

import java.time.Duration;

/** The three ways a workflow waits out a deferral, each bounded by the run's {@code maxWait}. */
enum DeferralWay {
  HELPER,
  TRANSPARENT_INTERCEPTOR,
  SERVER_RETRY_TIMER;

  /** The worker's interceptor for this way; none for the server's retry timer. */
  BackpressureInterceptor interceptor(Duration maxWait) {
    return switch (this) {
      case HELPER -> BackpressureInterceptor.create();
      case TRANSPARENT_INTERCEPTOR -> BackpressureInterceptor.transparent(maxWait);
      case SERVER_RETRY_TIMER -> null;
    };
  }

  /**
   * The workflow this way runs: {@code helper}, which waits with {@code Backpressure.run}, for the
   * helper; {@code plain}, which has no backpressure code, for the other two.
   */
  Class<? extends ChatWorkflow> workflow(
      Class<? extends ChatWorkflow> helper, Class<? extends ChatWorkflow> plain) {
    return this == HELPER ? helper : plain;
  }
}
