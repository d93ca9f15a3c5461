package io.backpressure.mock;

/**
 * What the server needs from a valid completion request.
 *
 * @param model the requested model, echoed in the answer
 * @param promptTokens estimated prompt tokens: the characters of the message texts divided by 4,
 *     rounded up
 * @param maxTokens the completion limit the caller set, or {@code null} when none
 */
record ParsedCall(String model, long promptTokens, Long maxTokens) {

  /** The estimate for {@code chars} characters of prompt text: about 4 characters per token. */
  static long estimateTokens(long chars) {
    return (chars + 3) / 4;
  }
}
