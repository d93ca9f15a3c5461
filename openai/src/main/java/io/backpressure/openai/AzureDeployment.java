package io.backpressure.openai;

import io.backpressure.core.Policy;

/**
 * An Azure OpenAI deployment's quota as the gate's policy. Azure grants each deployment a quota in
 * tokens per minute (TPM) and derives its requests per minute from it: {@value #RPM_PER_1000_TPM}
 * RPM per 1 000 TPM on the older chat models. It enforces the RPM over 1-second or 10-second
 * windows (600 RPM is 10 requests in any second, not 600 at the top of a minute), so the requests
 * cap is paced per second with a burst of one second's share, which is what {@link
 * Policy.Builder#requestsPerMinute} gives; and it charges a call's tokens on arrival from the
 * prompt and {@code max_tokens}, as the gate reserves them.
 *
 * <pre>{@code
 * Policy policy = AzureDeployment.quota("azure/my-resource/gpt-4o", 80_000) // TPM
 *     .priority("P1", 0.7).priority("P2", 0.3)
 *     .build();   // 80 000 TPM and 480 RPM
 * ModelRoutes routes = ModelRoutes.builder().route("gpt-4o", gate).build(); // deployment → gate
 * }</pre>
 *
 * Stateless.
 */
public final class AzureDeployment {

  /** Requests per minute Azure derives for every 1 000 tokens per minute of quota. */
  public static final double RPM_PER_1000_TPM = 6;

  /** The largest quota accepted, in tokens per minute. */
  public static final long MAX_TOKENS_PER_MINUTE = 1_000_000_000L;

  private AzureDeployment() {}

  /**
   * A policy builder for {@code target} with the deployment's quota: {@code tokens} at {@code
   * tokensPerMinute} and {@code requests} at the RPM Azure derives from it; add the priorities.
   *
   * @throws IllegalArgumentException when {@code tokensPerMinute} is not in [1 000, 10⁹]
   */
  public static Policy.Builder quota(String target, long tokensPerMinute) {
    if (tokensPerMinute < 1_000 || tokensPerMinute > MAX_TOKENS_PER_MINUTE) {
      throw new IllegalArgumentException(
          "tokensPerMinute must be in [1000, "
              + MAX_TOKENS_PER_MINUTE
              + "] (Azure grants quota in thousands of tokens per minute), got "
              + tokensPerMinute);
    }
    return Policy.builder(target)
        .requestsPerMinute(tokensPerMinute / 1_000.0 * RPM_PER_1000_TPM)
        .tokensPerMinute(tokensPerMinute);
  }
}
