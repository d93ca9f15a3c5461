package io.backpressure.client;

import io.backpressure.core.Gate;
import io.backpressure.core.Grant;
import io.backpressure.core.feedback.ProviderSignals;
import java.time.Instant;
import org.jspecify.annotations.Nullable;

/**
 * Receives every answer of the provider to a gated call, so that the caps can follow what the
 * provider reports (its rate-limit headers, its 429s). Called on the thread that received the
 * answer, before the SDK sees it; keep it quick, and do not throw (a thrown exception is logged and
 * ignored).
 */
@FunctionalInterface
public interface ProviderFeedback {

  /** Does nothing: the default until provider feedback is configured. */
  ProviderFeedback NONE = response -> {};

  void observe(ProviderResponse response);

  /**
   * Receives an answer together with the grant its call was admitted with. The client gate calls
   * this one; by default it drops the grant and calls {@link #observe(ProviderResponse)}.
   */
  default void observe(ProviderResponse response, @Nullable Grant grant) {
    observe(response);
  }

  /**
   * Hands every answer to {@code gate}'s provider feedback ({@link Gate#feedback}): its status,
   * rate-limit headers and error body, parsed by {@link ProviderSignals#parse}, adjust the gate's
   * effective caps. The call's grant goes with it, so the gate counts what the call debited as its
   * own traffic and does not take it for traffic from outside.
   */
  static ProviderFeedback toGate(Gate gate) {
    return new ProviderFeedback() {
      @Override
      public void observe(ProviderResponse response) {
        observe(response, null);
      }

      @Override
      public void observe(ProviderResponse response, @Nullable Grant grant) {
        gate.feedback(
            grant,
            ProviderSignals.parse(
                response.statusCode(), response.headers(), response.body(), Instant.now()));
      }
    };
  }
}
