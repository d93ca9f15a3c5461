package io.backpressure.springai;

import org.springframework.ai.chat.metadata.RateLimit;

/**
 * Hears the rate-limit state a provider reported with each answer, as Spring AI parsed it into the
 * response metadata ({@link RateLimit}: limit, remaining and reset of requests and tokens). A gate
 * that adapts its effective caps to what the provider says (the project README, "Provider
 * feedback") implements this; the default does nothing.
 *
 * <p>Called on the thread that received the answer, once per answered call, after the grant was
 * released; implementations are thread-safe and must not throw (an exception is logged and
 * ignored).
 */
@FunctionalInterface
public interface RateLimitFeedback {

  /** Ignores every report. */
  RateLimitFeedback NONE = (target, rateLimit) -> {};

  /**
   * One answer's rate-limit report.
   *
   * @param target the gate's target the call was admitted to
   * @param rateLimit what the provider reported; fields the provider did not send are null or zero,
   *     as Spring AI leaves them
   */
  void onAnswer(String target, RateLimit rateLimit);
}
