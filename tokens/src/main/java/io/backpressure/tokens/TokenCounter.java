package io.backpressure.tokens;

import com.knuddels.jtokkit.api.EncodingType;
import java.util.Locale;

/**
 * Counts the tokens of a text the way one model's tokenizer does, for admission estimates.
 *
 * <p>{@link #forModel} picks the model's tiktoken encoding (see {@link ModelEncodings}) and counts
 * exactly what tiktoken's {@code encode_ordinary} counts: special-token markers in the text are
 * counted as the plain text they are, as the provider does with user input. For a model with no
 * known encoding it falls back to {@link CharsPerToken}. Implementations are thread-safe.
 */
public interface TokenCounter {

  /** The tokens of {@code text}; zero for an empty or null text. */
  int count(String text);

  /** What this counter is, for logs: an encoding name or the fallback's ratio. */
  String name();

  /** Whether counts are exact (a real encoding) rather than a characters-per-token estimate. */
  boolean exact();

  /**
   * The counter for {@code model}: its tiktoken encoding when {@link ModelEncodings} knows it,
   * Anthropic's documented ratio for {@code claude} models, otherwise the general ratio.
   */
  static TokenCounter forModel(String model) {
    return ModelEncodings.forModel(model)
        .<TokenCounter>map(TokenCounter::of)
        .orElseGet(
            () ->
                model != null && model.strip().toLowerCase(Locale.ROOT).startsWith("claude")
                    ? CharsPerToken.ANTHROPIC
                    : CharsPerToken.GENERAL);
  }

  /**
   * The counter of one tiktoken encoding. Each encoding loads once, on first use, and is shared.
   */
  static TokenCounter of(EncodingType type) {
    return EncodingCounter.of(type);
  }
}
