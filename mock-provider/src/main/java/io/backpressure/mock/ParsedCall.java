package io.backpressure.mock;

/**
 * What the server needs from a valid completion request.
 *
 * @param model the requested model, echoed in the answer
 * @param promptTokens estimated prompt tokens: the characters of the message texts divided by 4,
 *     rounded up
 * @param maxTokens the completion limit the caller set, or {@code null} when none
 * @param stream whether the answer is to be streamed as server-sent events
 * @param includeUsage whether a streamed OpenAI answer ends with a usage chunk
 */
record ParsedCall(
    String model, long promptTokens, Long maxTokens, boolean stream, boolean includeUsage) {

  /** The estimate for {@code chars} characters of prompt text: about 4 characters per token. */
  static long estimateTokens(long chars) {
    return (chars + 3) / 4;
  }
}
