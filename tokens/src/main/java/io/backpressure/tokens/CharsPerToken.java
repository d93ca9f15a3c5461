package io.backpressure.tokens;

/**
 * The fallback estimate for a model whose tokenizer is not available: ⌈characters / ratio⌉.
 *
 * <p>Two ratios are documented by the providers themselves: Anthropic's documentation states that
 * for Claude "a token approximately represents 3.5 English characters" ({@link #ANTHROPIC}), and
 * OpenAI's that one token is about 4 characters of common English text ({@link #GENERAL}, used for
 * any other model). Characters are Unicode code points. Rounding up and the lower of the two ratios
 * for Claude keep the estimate on the high side, which the gate prefers: the release reconciles the
 * difference with the provider's own count, and an estimate that is too low lets a burst overshoot
 * the cap before the releases arrive.
 *
 * @param charsPerToken characters per token, in (0, 100]
 */
public record CharsPerToken(double charsPerToken) implements TokenCounter {

  /** Anthropic's documented ratio for Claude models: 3.5 characters per token. */
  public static final CharsPerToken ANTHROPIC = new CharsPerToken(3.5);

  /** OpenAI's rule of thumb for English text, used for models with no known tokenizer: 4. */
  public static final CharsPerToken GENERAL = new CharsPerToken(4.0);

  public CharsPerToken {
    if (!(charsPerToken > 0 && charsPerToken <= 100)) {
      throw new IllegalArgumentException("charsPerToken must be in (0, 100], got " + charsPerToken);
    }
  }

  @Override
  public int count(String text) {
    if (text == null || text.isEmpty()) {
      return 0;
    }
    return (int) Math.ceil(text.codePointCount(0, text.length()) / charsPerToken);
  }

  @Override
  public String name() {
    return "chars/" + charsPerToken;
  }

  @Override
  public boolean exact() {
    return false;
  }
}
