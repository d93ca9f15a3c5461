package io.backpressure.client;

/**
 * What the gate learns about one provider call from its request body, before it is sent.
 *
 * <p>A value, safe to read from any thread.
 *
 * @param model the model named in the request
 * @param promptTokens the estimated input tokens (messages and system prompt, with the chat
 *     format's framing)
 * @param maxTokens the completion limit ({@code max_tokens}, {@code max_completion_tokens}) times
 *     the number of choices, or null when the request sets none
 * @param stream whether the answer comes as server-sent events
 */
public record ProviderCall(String model, long promptTokens, Long maxTokens, boolean stream) {}
