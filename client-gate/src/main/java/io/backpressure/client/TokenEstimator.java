package io.backpressure.client;

import io.backpressure.tokens.CharsPerToken;
import io.backpressure.tokens.TokenCounter;
import java.util.List;
import java.util.Objects;

/**
 * Estimates a call's prompt tokens before it is sent, for the cost the gate debits at admission.
 * The estimate need not be exact: the gate reconciles it with the provider's count on release, and
 * each queue learns how far its estimates fall short (see the project README, "How it works").
 *
 * <p>Implementations are thread-safe and fast (they run on every call). {@link #of(TokenCounter)}
 * counts with a model's tokenizer ({@code TokenCounter.forModel("gpt-4o")}) or a ratio; any other
 * estimate plugs in by implementing the one method.
 */
@FunctionalInterface
public interface TokenEstimator {

  /**
   * The estimated prompt tokens of a call whose messages have these texts, in order.
   *
   * @param messageTexts the text of each message, never null (an empty string for a message with no
   *     text)
   * @return at least zero
   */
  long estimate(List<String> messageTexts);

  /**
   * About four characters per token ({@link CharsPerToken#GENERAL}), the rule of thumb for English
   * text on GPT-style tokenizers.
   */
  static TokenEstimator charsPerToken() {
    return of(CharsPerToken.GENERAL);
  }

  /**
   * {@code ceil(characters / charsPerToken)} of each message (characters are code points), summed.
   *
   * @param charsPerToken in (0, 100]; outside it, an {@link IllegalArgumentException} naming the
   *     range
   */
  static TokenEstimator charsPerToken(double charsPerToken) {
    return of(new CharsPerToken(charsPerToken));
  }

  /** The sum of {@code counter}'s count of each message's text. */
  static TokenEstimator of(TokenCounter counter) {
    Objects.requireNonNull(counter, "counter");
    return texts -> {
      long tokens = 0;
      for (String text : texts) {
        tokens += counter.count(text);
      }
      return tokens;
    };
  }
}
