package io.backpressure.client;

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
}
