package io.backpressure.mock;

import java.util.random.RandomGenerator;

/**
 * How many completion tokens the server generates for a call before {@code max_tokens} clamps it: a
 * fixed number, or uniform over an inclusive range. Parse from {@code "50"} or {@code "20..200"}.
 */
public sealed interface CompletionTokens permits CompletionTokens.Fixed, CompletionTokens.Uniform {

  /** The largest number of completion tokens a distribution may produce. */
  int MAX = 1_000_000;

  /** One draw, in {@code [0, MAX]}. */
  int draw(RandomGenerator random);

  /** Always {@code tokens}, in {@code [0, MAX]}. */
  record Fixed(int tokens) implements CompletionTokens {
    /**
     * @throws IllegalArgumentException when {@code tokens} is out of range
     */
    public Fixed {
      checkRange("completion tokens", tokens);
    }

    @Override
    public int draw(RandomGenerator random) {
      return tokens;
    }

    @Override
    public String toString() {
      return Integer.toString(tokens);
    }
  }

  /** Uniform over {@code [min, max]}, both in {@code [0, MAX]}, {@code min <= max}. */
  record Uniform(int min, int max) implements CompletionTokens {
    /**
     * @throws IllegalArgumentException when a bound is out of range or {@code min > max}
     */
    public Uniform {
      checkRange("completion tokens minimum", min);
      checkRange("completion tokens maximum", max);
      if (min > max) {
        throw new IllegalArgumentException(
            "completion tokens minimum must not exceed the maximum, but was: " + min + ".." + max);
      }
    }

    @Override
    public int draw(RandomGenerator random) {
      return min == max ? min : random.nextInt(min, max + 1);
    }

    @Override
    public String toString() {
      return min + ".." + max;
    }
  }

  /**
   * {@code "50"} (fixed) or {@code "20..200"} (uniform, inclusive).
   *
   * @throws IllegalArgumentException naming the expected forms and the allowed range
   */
  static CompletionTokens parse(String text) {
    String spec = text == null ? "" : text.strip();
    try {
      int dots = spec.indexOf("..");
      if (dots < 0) {
        return new Fixed(Integer.parseInt(spec));
      }
      return new Uniform(
          Integer.parseInt(spec.substring(0, dots).strip()),
          Integer.parseInt(spec.substring(dots + 2).strip()));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          "completion tokens must be N or A..B with integers in [0, "
              + MAX
              + "], but was: "
              + text);
    }
  }

  private static void checkRange(String field, int value) {
    if (value < 0 || value > MAX) {
      throw new IllegalArgumentException(
          field + " must be in the range [0, " + MAX + "], but was: " + value);
    }
  }
}
