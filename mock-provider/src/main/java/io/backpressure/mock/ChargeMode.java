package io.backpressure.mock;

import java.util.Locale;

/** How many tokens the tokens limiter charges a call when it is admitted. */
public enum ChargeMode {
  /**
   * The call's true usage: estimated prompt tokens plus the completion tokens the server is about
   * to generate (drawn before admission), as if the provider knew the outcome in advance.
   */
  ACTUAL,
  /**
   * OpenAI's documented rule: the larger of {@code max_tokens} (0 when absent) and the estimated
   * prompt tokens, charged at admission and never corrected afterwards.
   */
  MAX_TOKENS;

  /**
   * The mode named {@code text}: {@code actual} or {@code max-tokens} (any case; {@code _} works
   * too).
   *
   * @throws IllegalArgumentException naming the allowed values
   */
  public static ChargeMode parse(String text) {
    String name = text == null ? "" : text.strip().toLowerCase(Locale.ROOT).replace('_', '-');
    return switch (name) {
      case "actual" -> ACTUAL;
      case "max-tokens" -> MAX_TOKENS;
      default ->
          throw new IllegalArgumentException(
              "charge must be one of actual, max-tokens, but was: " + text);
    };
  }
}
