package io.backpressure.temporal;

import io.backpressure.core.Cost;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * What the gate needs to know about one provider call: whose it is, how urgent, what it costs.
 *
 * <p>The natural place for it is the activity's input: let the input record implement this
 * interface and hand it to {@link ActivityGate#call(GatedRequest, java.util.concurrent.Callable,
 * java.util.function.Function)} as is.
 *
 * <pre>{@code
 * public record ChatInput(String tenant, String priority, String prompt, Long maxTokens)
 *     implements GatedRequest {
 *   public Cost cost() { return Cost.requests(1).tokens(prompt.length() / 4.0); }
 * }
 * }</pre>
 *
 * <p>Values are not checked here: the gate answers a blank tenant, an unknown class or a bad cost
 * with a rejection naming the field, which the activity turns into a non-retryable {@value
 * Backpressure#REJECTED} failure.
 */
public interface GatedRequest {

  /** The tenant the call is for. */
  String tenant();

  /** The priority class, one of the gate policy's class names (for example {@code P1}). */
  String priority();

  /** The estimated cost, for example {@code Cost.requests(1).tokens(promptTokens)}. */
  Cost cost();

  /**
   * The call's completion limit ({@code max_tokens}), or {@code null} when it sets none. A gate in
   * reservation mode debits {@code tokens + maxTokens} up front and refunds the unused part on
   * release.
   */
  default @Nullable Long maxTokens() {
    return null;
  }

  /** A request with no completion limit. */
  static GatedRequest of(String tenant, String priority, Cost cost) {
    return new SimpleGatedRequest(tenant, priority, Objects.requireNonNull(cost, "cost"), null);
  }

  /** A request whose completion is limited to {@code maxTokens}. */
  static GatedRequest of(String tenant, String priority, Cost cost, long maxTokens) {
    return new SimpleGatedRequest(
        tenant, priority, Objects.requireNonNull(cost, "cost"), maxTokens);
  }
}
