package io.backpressure.temporal;

import io.backpressure.core.Cost;

/**
 * The test activities' input, gated as is.
 *
 * @param mode what the simulated provider does: {@code ok}, {@code error} (an HTTP 500), {@code
 *     hang} (runs until the activity is cancelled), {@code naive} (ungated, sleeps its backoff on
 *     the slot)
 */
public record ChatInput(String tenant, String priority, int tokens, String mode)
    implements GatedRequest {

  static ChatInput ok(String tenant, String priority) {
    return new ChatInput(tenant, priority, 0, "ok");
  }

  @Override
  public Cost cost() {
    return tokens > 0 ? Cost.requests(1).tokens(tokens) : Cost.requests(1);
  }
}
