package io.backpressure.client;

import org.jspecify.annotations.Nullable;

/**
 * Finds whose a provider call is. The default reads the thread's {@link GateContext}; a resolver of
 * one's own can read anything else (a request-scoped bean, an MDC entry, the model name).
 */
@FunctionalInterface
public interface CallerResolver {

  /**
   * The caller of {@code call}, or null when it is not known; the gated client then refuses the
   * call with a message saying how to set one.
   */
  @Nullable GateContext resolve(ProviderCall call);

  /** Reads {@link GateContext#current()}. */
  static CallerResolver fromContext() {
    return call -> GateContext.current().orElse(null);
  }
}
