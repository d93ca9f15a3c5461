package io.backpressure.anthropic;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.backpressure.client.Dialect;
import io.backpressure.client.Dialects;
import io.backpressure.client.ProviderCall;
import io.backpressure.client.StreamTally;
import io.backpressure.client.Usage;
import io.backpressure.tokens.ChatMessage;
import io.backpressure.tokens.ChatTokens;
import io.backpressure.tokens.TokenCounter;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Anthropic's messages API ({@code POST /v1/messages}) as the gate reads it.
 *
 * <ul>
 *   <li>prompt tokens: the {@code system} prompt and the {@code messages}, estimated with
 *       Anthropic's documented 3.5 characters per token (see the {@code tokens} module's {@code
 *       CharsPerToken}) and the chat framing of {@link ChatTokens}; text blocks count as their
 *       text, other blocks (tool use, tool results) as their JSON;
 *   <li>completion limit: {@code max_tokens} (required by the API);
 *   <li>usage: {@code usage.input_tokens} plus {@code cache_creation_input_tokens} (what
 *       Anthropic's input-tokens-per-minute limit counts; cache reads are not counted) and {@code
 *       usage.output_tokens}. A stream reports the input in {@code message_start} and the
 *       cumulative output in {@code message_delta}; nothing needs to be asked for.
 * </ul>
 *
 * Stateless and thread-safe.
 */
public final class AnthropicMessages implements Dialect {

  /** The one instance. */
  public static final AnthropicMessages INSTANCE = new AnthropicMessages();

  private AnthropicMessages() {}

  @Override
  public boolean gates(String method, List<String> pathSegments) {
    return Dialects.postTo(method, pathSegments, "messages");
  }

  @Override
  public ProviderCall read(ObjectNode body) {
    String model = Dialects.requireText(body, "model", "in the request body");
    JsonNode messages = Dialects.requireArray(body, "messages");
    List<ChatMessage> chat = new ArrayList<>(messages.size() + 1);
    if (!body.path("system").isMissingNode()) {
      chat.add(ChatMessage.of("system", text(body.path("system"))));
    }
    for (JsonNode message : messages) {
      chat.add(ChatMessage.of(message.path("role").asText(""), text(message.path("content"))));
    }
    long prompt = ChatTokens.count(TokenCounter.forModel(model), chat);
    JsonNode limit = body.path("max_tokens");
    Long maxTokens = limit.canConvertToLong() ? limit.asLong() : null;
    return new ProviderCall(model, prompt, maxTokens, body.path("stream").asBoolean(false));
  }

  @Override
  public boolean prepare(ObjectNode body, ProviderCall call) {
    return false;
  }

  @Override
  public Optional<Usage> usage(JsonNode answer) {
    JsonNode usage = answer.path("usage");
    return Dialects.usage(usage, "input_tokens", "output_tokens")
        .map(counted -> new Usage(input(usage), counted.outputTokens()));
  }

  @Override
  public StreamTally tally(ProviderCall call) {
    return new AnthropicStreamTally(call);
  }

  /** The input tokens a {@code usage} object reports, as the input-token limit counts them. */
  static long input(JsonNode usage) {
    return Math.max(0, usage.path("input_tokens").asLong(0))
        + Math.max(0, usage.path("cache_creation_input_tokens").asLong(0));
  }

  /** A content value's text: a string, or its blocks' texts (other blocks as their JSON). */
  private static String text(JsonNode content) {
    if (content.isTextual()) {
      return content.asText();
    }
    if (!content.isArray()) {
      return "";
    }
    StringBuilder text = new StringBuilder();
    for (JsonNode block : content) {
      text.append(block.path("text").isTextual() ? block.path("text").asText() : block.toString());
    }
    return text.toString();
  }
}
