package io.backpressure.openai;

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
 * OpenAI's chat completions ({@code POST …/chat/completions}, also under an Azure deployment's
 * path) as the gate reads them.
 *
 * <ul>
 *   <li>prompt tokens: the {@code messages} counted by OpenAI's rules ({@link ChatTokens}) with the
 *       model's tokenizer; text parts of array contents are counted, images and tools are not;
 *   <li>completion limit: {@code max_completion_tokens}, else {@code max_tokens}, times {@code n};
 *   <li>usage: {@code usage.prompt_tokens} and {@code usage.completion_tokens}; a stream reports
 *       them in its last chunk when {@code stream_options.include_usage} is true, which {@link
 *       #prepare} sets when the request does not say. That chunk has an empty {@code choices} list:
 *       code that reads {@code chunk.choices().get(0)} must skip it.
 * </ul>
 *
 * Stateless and thread-safe.
 */
public final class OpenAiChat implements Dialect {

  /** The one instance. */
  public static final OpenAiChat INSTANCE = new OpenAiChat();

  private OpenAiChat() {}

  @Override
  public boolean gates(String method, List<String> pathSegments) {
    return Dialects.postTo(method, pathSegments, "chat", "completions");
  }

  @Override
  public ProviderCall read(ObjectNode body) {
    String model = Dialects.requireText(body, "model", "in the request body");
    JsonNode messages = Dialects.requireArray(body, "messages");
    TokenCounter counter = TokenCounter.forModel(model);
    List<ChatMessage> chat = new ArrayList<>(messages.size());
    for (JsonNode message : messages) {
      JsonNode name = message.path("name");
      chat.add(
          new ChatMessage(
              message.path("role").asText(""),
              name.isTextual() ? name.asText() : null,
              text(message.path("content"))));
    }
    Long maxTokens = limit(body);
    return new ProviderCall(
        model, ChatTokens.count(counter, chat), maxTokens, body.path("stream").asBoolean(false));
  }

  @Override
  public boolean prepare(ObjectNode body, ProviderCall call) {
    if (!call.stream()) {
      return false;
    }
    JsonNode options = body.path("stream_options");
    if (options.isObject() && options.has("include_usage")) {
      return false;
    }
    ObjectNode streamOptions =
        options.isObject() ? (ObjectNode) options : body.putObject("stream_options");
    streamOptions.put("include_usage", true);
    return true;
  }

  @Override
  public Optional<Usage> usage(JsonNode answer) {
    return Dialects.usage(answer.path("usage"), "prompt_tokens", "completion_tokens");
  }

  @Override
  public StreamTally tally(ProviderCall call) {
    return new OpenAiStreamTally(call);
  }

  /** The text of a message's {@code content}: a string, or the text parts of an array. */
  private static String text(JsonNode content) {
    return content.isTextual() ? content.asText() : Dialects.texts(content);
  }

  private static Long limit(ObjectNode body) {
    JsonNode limit = body.path("max_completion_tokens");
    if (!limit.canConvertToLong()) {
      limit = body.path("max_tokens");
    }
    if (!limit.canConvertToLong()) {
      return null;
    }
    long choices = body.path("n").canConvertToLong() ? Math.max(1, body.path("n").asLong()) : 1;
    return limit.asLong() * choices;
  }
}
