package io.backpressure.integration;

import java.util.List;

/**
 * Estimates a call's prompt tokens before it is sent, for the cost the gate debits at admission.
 * The estimate need not be exact: the gate reconciles it with the provider's count on release, and
 * each queue learns how far its estimates fall short (see the project README, "How it works").
 *
 * <p>Implementations are thread-safe and fast (they run on every call); a tokenizer-based one (for
 * example over jtokkit's encodings) plugs in by implementing this interface.
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
   * About four characters per token, the rule of thumb for English text on GPT-style tokenizers.
   */
  static TokenEstimator charsPerToken() {
    return charsPerToken(4.0);
  }

  /**
   * {@code ceil(characters / charsPerToken)} over all messages.
   *
   * @param charsPerToken in (0, 100]
   */
  static TokenEstimator charsPerToken(double charsPerToken) {
    if (!(charsPerToken > 0 && charsPerToken <= 100)) {
      throw new IllegalArgumentException("charsPerToken must be in (0, 100], got " + charsPerToken);
    }
    return texts -> {
      long chars = 0;
      for (String text : texts) {
        chars += text.length();
      }
      return (long) Math.ceil(chars / charsPerToken);
    };
  }
}
