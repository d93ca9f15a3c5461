package io.backpressure.mock;

/** One path of the server. Implementations are thread-safe and never block the calling thread. */
interface Endpoint {

  /** Answers {@code exchange}, now or later, exactly once. */
  void serve(Exchange exchange);
}
