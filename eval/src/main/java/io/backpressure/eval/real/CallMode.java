package io.backpressure.eval.real;

import io.backpressure.eval.sim.SdkRetry;

/** What an activity does with its slot: one per configuration. */
public sealed interface CallMode {

  /**
   * {@code naive} and {@code tn}: send, and on a 429 sleep {@code backoff} on the slot and send
   * again.
   */
  public record SdkRetry(Backoff backoff) implements CallMode {}

  /**
   * {@code gateway}: wait for the tenant's slice in the proxy, then as {@link SdkRetry}; slot held
   * throughout.
   */
  record Proxy(GatewaySlices slices, Backoff backoff) implements CallMode {}

  /**
   * {@code bp}: the single attempt through the gated openai-java client, admitted inside the
   * activity.
   *
   * @param provider the gated client
   * @param deadlines the gate the client admits at, which gives each admission its call's terms
   * @param requests whether the gate meters requests
   * @param tokens whether the gate meters tokens
   */
  record Gated(OpenAiProvider provider, DeadlineGate deadlines, boolean requests, boolean tokens)
      implements CallMode {}
}
