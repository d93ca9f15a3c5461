/**
 * Token counts for admission estimates: {@link io.backpressure.tokens.TokenCounter} with OpenAI's
 * encodings (jtokkit), chat-message overhead by OpenAI's counting rules ({@link
 * io.backpressure.tokens.ChatTokens}), and a documented characters-per-token fallback ({@link
 * io.backpressure.tokens.CharsPerToken}) for other models.
 */
package io.backpressure.tokens;
