package io.backpressure.tokens;

import java.util.Objects;

/**
 * One chat message as far as token counting is concerned.
 *
 * @param role {@code system}, {@code user}, {@code assistant}, …
 * @param name the optional participant name, or null
 * @param content the message's text (text parts joined), or empty
 */
public record ChatMessage(String role, String name, String content) {

  public ChatMessage {
    Objects.requireNonNull(role, "role");
    content = content == null ? "" : content;
  }

  /** A message with no participant name. */
  public static ChatMessage of(String role, String content) {
    return new ChatMessage(role, null, content);
  }
}
