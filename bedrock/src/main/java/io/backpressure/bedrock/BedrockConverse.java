package io.backpressure.bedrock;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.backpressure.client.Dialect;
import io.backpressure.client.ProviderCall;
import io.backpressure.client.StreamTally;
import io.backpressure.client.Usage;
import java.util.List;
import java.util.Optional;
import software.amazon.awssdk.services.bedrockruntime.model.ContentBlock;
import software.amazon.awssdk.services.bedrockruntime.model.ConverseRequest;
import software.amazon.awssdk.services.bedrockruntime.model.Message;
import software.amazon.awssdk.services.bedrockruntime.model.SystemContentBlock;
import software.amazon.awssdk.services.bedrockruntime.model.TokenUsage;

/**
 * Bedrock's Converse ({@code POST /model/{modelId}/converse}) as the gate reads it, from the JSON
 * {@link #json(ConverseRequest)} makes of the SDK's request: {@code {"modelId", "messages",
 * "system", "inferenceConfig"}} as in the REST API, with the path's model id in the body.
 *
 * <ul>
 *   <li>prompt tokens: <b>an estimate</b>, the characters of the text blocks of {@code messages}
 *       and {@code system} divided by 4, rounded up; Bedrock's models (Claude, Llama, Titan, …)
 *       have no tokenizer published for Java. Images, documents and tools count nothing.
 *   <li>completion limit: {@code inferenceConfig.maxTokens}, which Bedrock reserves with the input
 *       when the call starts; none when the request sets none.
 *   <li>usage: {@code usage.inputTokens} and {@code usage.outputTokens}.
 * </ul>
 *
 * Stateless and thread-safe.
 */
public final class BedrockConverse implements Dialect {

  /** The one instance. */
  public static final BedrockConverse INSTANCE = new BedrockConverse();

  private static final ObjectMapper JSON = new ObjectMapper();

  private BedrockConverse() {}

  @Override
  public boolean gates(String method, List<String> pathSegments) {
    int n = pathSegments.size();
    return method.equals("POST")
        && n >= 3
        && pathSegments.get(n - 3).equals("model")
        && pathSegments.get(n - 1).equals("converse");
  }

  @Override
  public ProviderCall read(ObjectNode body) {
    JsonNode model = body.path("modelId");
    if (!model.isTextual() || model.asText().isBlank()) {
      throw new IllegalArgumentException("modelId must be a non-empty string");
    }
    long chars = 0;
    for (JsonNode message : body.path("messages")) {
      chars += textChars(message.path("content"));
    }
    chars += textChars(body.path("system"));
    JsonNode maxTokens = body.path("inferenceConfig").path("maxTokens");
    return new ProviderCall(
        model.asText(),
        (chars + 3) / 4,
        maxTokens.canConvertToLong() ? Math.max(0, maxTokens.asLong()) : null,
        false);
  }

  @Override
  public boolean prepare(ObjectNode body, ProviderCall call) {
    return false;
  }

  @Override
  public Optional<Usage> usage(JsonNode answer) {
    JsonNode usage = answer.path("usage");
    if (!usage.path("inputTokens").canConvertToLong()
        || !usage.path("outputTokens").canConvertToLong()) {
      return Optional.empty();
    }
    return Optional.of(
        new Usage(
            Math.max(0, usage.path("inputTokens").asLong()),
            Math.max(0, usage.path("outputTokens").asLong())));
  }

  /** Converse answers are not streamed: {@code ConverseStream} is not gated. */
  @Override
  public StreamTally tally(ProviderCall call) {
    throw new UnsupportedOperationException("ConverseStream is not gated");
  }

  /** The REST body of {@code request}, with its model id, as {@link #read} reads it. */
  static byte[] json(ConverseRequest request) {
    ObjectNode body = JSON.createObjectNode();
    body.put("modelId", request.modelId());
    ArrayNode messages = body.putArray("messages");
    for (Message message : request.messages()) {
      ObjectNode out = messages.addObject();
      out.put("role", message.roleAsString());
      ArrayNode content = out.putArray("content");
      for (ContentBlock block : message.content()) {
        if (block.text() != null) {
          content.addObject().put("text", block.text());
        }
      }
    }
    ArrayNode system = body.putArray("system");
    for (SystemContentBlock block : request.system()) {
      if (block.text() != null) {
        system.addObject().put("text", block.text());
      }
    }
    if (request.inferenceConfig() != null && request.inferenceConfig().maxTokens() != null) {
      body.putObject("inferenceConfig").put("maxTokens", request.inferenceConfig().maxTokens());
    }
    return body.toString().getBytes(java.nio.charset.StandardCharsets.UTF_8);
  }

  /** The answer's usage in the REST shape, for the release. */
  static byte[] usageJson(TokenUsage usage) {
    ObjectNode body = JSON.createObjectNode();
    ObjectNode out = body.putObject("usage");
    out.put("inputTokens", usage.inputTokens());
    out.put("outputTokens", usage.outputTokens());
    return body.toString().getBytes(java.nio.charset.StandardCharsets.UTF_8);
  }

  private static long textChars(JsonNode blocks) {
    long chars = 0;
    for (JsonNode block : blocks) {
      if (block.path("text").isTextual()) {
        chars += block.path("text").asText().length();
      }
    }
    return chars;
  }
}
