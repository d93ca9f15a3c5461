package io.backpressure.client;

import io.backpressure.core.Cost;
import io.backpressure.core.Dimension;
import java.util.Set;

/**
 * Which of the gate policy's dimensions a gated call is charged in, and how much.
 *
 * <table>
 *   <caption>what each dimension is charged</caption>
 *   <tr><th>dimension</th><th>at admission</th><th>at release</th></tr>
 *   <tr><td>{@code requests}</td><td>1</td><td>1</td></tr>
 *   <tr><td>{@code tokens}</td><td>prompt estimate (in reservation mode the gate adds
 *       {@code max_tokens})</td><td>input + output</td></tr>
 *   <tr><td>{@code input_tokens}</td><td>prompt estimate</td><td>input</td></tr>
 *   <tr><td>{@code output_tokens}</td><td>the completion limit, or 0 when the request sets
 *       none</td><td>output</td></tr>
 * </table>
 *
 * <p>{@code input_tokens} and {@code output_tokens} are Anthropic's separate limits (input and
 * output tokens per minute): a policy that caps them reserves the completion limit at admission and
 * refunds what the model did not write. A call that failed is released as one request with no
 * tokens: the provider counted the call but generated nothing.
 *
 * <p>A value, safe to read from any thread.
 *
 * @param dimensions the dimensions to charge, each one of {@code requests}, {@code tokens}, {@code
 *     input_tokens}, {@code output_tokens}, and all of them dimensions of the gate's policy (a cost
 *     naming a dimension the policy lacks is rejected by the gate)
 */
public record CostModel(Set<String> dimensions) {

  /** Anthropic's input-token limit. */
  public static final String INPUT_TOKENS = "input_tokens";

  /** Anthropic's output-token limit. */
  public static final String OUTPUT_TOKENS = "output_tokens";

  private static final Set<String> KNOWN =
      Set.of(Dimension.REQUESTS, Dimension.TOKENS, INPUT_TOKENS, OUTPUT_TOKENS);

  /** Requests and total tokens: OpenAI's RPM and TPM. */
  public static final CostModel REQUESTS_AND_TOKENS =
      new CostModel(Set.of(Dimension.REQUESTS, Dimension.TOKENS));

  /** Requests, input and output tokens: Anthropic's RPM, ITPM and OTPM. */
  public static final CostModel SEPARATE_INPUT_OUTPUT =
      new CostModel(Set.of(Dimension.REQUESTS, INPUT_TOKENS, OUTPUT_TOKENS));

  public CostModel {
    dimensions = Set.copyOf(dimensions);
    if (dimensions.isEmpty()) {
      throw new IllegalArgumentException("dimensions must name at least one of " + KNOWN);
    }
    for (String name : dimensions) {
      if (!KNOWN.contains(name)) {
        throw new IllegalArgumentException(
            "dimensions: '"
                + name
                + "' is not a dimension a gated client can charge; allowed: "
                + KNOWN);
      }
    }
  }

  /** A model charging {@code dimensions}. */
  public static CostModel of(String... dimensions) {
    return new CostModel(Set.of(dimensions));
  }

  /** What {@code call} is debited at admission. */
  public Cost estimate(ProviderCall call) {
    long output = call.maxTokens() == null ? 0 : call.maxTokens();
    return cost(call.promptTokens(), call.promptTokens(), output);
  }

  /** What a call that used {@code usage} is released with. */
  public Cost actual(Usage usage) {
    return cost(
        usage.inputTokens() + usage.outputTokens(), usage.inputTokens(), usage.outputTokens());
  }

  /** What a failed call is released with: one request, no tokens. */
  public Cost failed() {
    return cost(0, 0, 0);
  }

  private Cost cost(long tokens, long input, long output) {
    Cost cost = with(Cost.none(), Dimension.REQUESTS, 1);
    cost = with(cost, Dimension.TOKENS, tokens);
    cost = with(cost, INPUT_TOKENS, input);
    return with(cost, OUTPUT_TOKENS, output);
  }

  private Cost with(Cost cost, String dimension, double amount) {
    return dimensions.contains(dimension) ? cost.with(dimension, amount) : cost;
  }
}
