package io.backpressure.eval.real;

import io.backpressure.temporal.ActivityGate;

/** What an activity does with its slot: one per configuration. */
public sealed interface CallMode {

  /** {@code naive} and {@code tn}: send, and on a 429 sleep {@code backoff} on the slot and send again. */
  record SdkRetry(Backoff backoff) implements CallMode {}

  /** {@code gateway}: wait for the tenant's slice in the proxy, then as {@link SdkRetry}; slot held throughout. */
  record Proxy(GatewaySlices slices, Backoff backoff) implements CallMode {}

  /**
   * {@code bp}: admission through {@code gate} before the single attempt.
   *
   * @param deadlines the gate under {@code gate}, which adds each call's wait limit to its admissions
   * @param requests whether the gate meters requests
   * @param tokens whether the gate meters tokens
   */
  record Gated(ActivityGate gate, DeadlineGate deadlines, boolean requests, boolean tokens) implements CallMode {}
}
