package io.backpressure.tokens;

import java.util.List;
import java.util.Objects;

/**
 * The prompt tokens of a chat request, by OpenAI's counting rules.
 *
 * <p>A chat prompt is more than its texts: the chat format wraps each message in markers. OpenAI's
 * guide "How to count tokens with tiktoken" gives the rule that matches the {@code
 * usage.prompt_tokens} its API reports for gpt-3.5-turbo, gpt-4 and gpt-4o models:
 *
 * <ul>
 *   <li>each message costs 3 tokens of framing, plus the tokens of every field's value (its role,
 *       its content and, when present, its name);
 *   <li>a message with a name costs 1 token more;
 *   <li>every reply is primed with {@code <|start|>assistant<|message|>}: 3 tokens for the prompt.
 * </ul>
 *
 * <p>Worked example (o200k_base): one user message "hello world" costs 3 + 1 ("user") + 2 ("hello",
 * " world") = 6, and the priming 3 more: 9 prompt tokens. Tool definitions, images and audio are
 * not counted; the gate's release corrects the estimate with the provider's own count. Stateless
 * and thread-safe.
 */
public final class ChatTokens {

  /** Framing tokens per message. */
  public static final int TOKENS_PER_MESSAGE = 3;

  /** Extra tokens for a message that carries a participant name. */
  public static final int TOKENS_PER_NAME = 1;

  /** Tokens that prime the reply, counted once per request. */
  public static final int REPLY_PRIMING = 3;

  private ChatTokens() {}

  /** The prompt tokens of {@code messages} counted with {@code counter}. */
  public static int count(TokenCounter counter, List<ChatMessage> messages) {
    Objects.requireNonNull(counter, "counter");
    int total = REPLY_PRIMING;
    for (ChatMessage message : messages) {
      total +=
          TOKENS_PER_MESSAGE + counter.count(message.role()) + counter.count(message.content());
      if (message.name() != null) {
        total += TOKENS_PER_NAME + counter.count(message.name());
      }
    }
    return total;
  }
}
