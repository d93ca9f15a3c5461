package io.backpressure.client;

/**
 * Tokens a provider counted for one call, as its answer reports them (or as much as a broken stream
 * proves).
 *
 * <p>A value, safe to read from any thread.
 *
 * @param inputTokens prompt tokens, at least 0
 * @param outputTokens completion tokens, at least 0
 */
public record Usage(long inputTokens, long outputTokens) {

  public Usage {
    if (inputTokens < 0 || outputTokens < 0) {
      throw new IllegalArgumentException(
          "token counts must be at least 0, got input " + inputTokens + ", output " + outputTokens);
    }
  }
}
