package io.backpressure.client;

import io.backpressure.core.Gate;
import io.backpressure.core.feedback.ProviderSignals;
import java.time.Instant;

/**
 * Receives every answer of the provider to a gated call, so that the caps can follow what the
 * provider reports (its rate-limit headers, its 429s). Called on the thread that received the answer,
 * before the SDK sees it; keep it quick, and do not throw (a thrown exception is logged and ignored).
 */
@FunctionalInterface
public interface ProviderFeedback {

  /** Does nothing: the default until provider feedback is configured. */
  ProviderFeedback NONE = response -> {};

  void observe(ProviderResponse response);

  /**
   * Hands every answer to {@code gate}'s provider feedback ({@link Gate#feedback}): its status and
   * rate-limit headers, parsed by {@link ProviderSignals#parse}, adjust the gate's effective caps.
   */
  static ProviderFeedback toGate(Gate gate) {
    return response -> gate.feedback(null,
        ProviderSignals.parse(response.statusCode(), response.headers(), null, Instant.now()));
  }
}
