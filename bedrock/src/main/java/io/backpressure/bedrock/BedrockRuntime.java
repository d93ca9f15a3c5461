package io.backpressure.bedrock;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.backpressure.client.Dialect;
import io.backpressure.client.Dialects;
import io.backpressure.client.ProviderCall;
import io.backpressure.client.StreamTally;
import io.backpressure.client.Usage;
import io.backpressure.tokens.CharsPerToken;
import io.backpressure.tokens.TokenCounter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;
import software.amazon.awssdk.core.SdkBytes;
import software.amazon.awssdk.services.bedrockruntime.model.ContentBlock;
import software.amazon.awssdk.services.bedrockruntime.model.InferenceConfiguration;
import software.amazon.awssdk.services.bedrockruntime.model.Message;
import software.amazon.awssdk.services.bedrockruntime.model.SystemContentBlock;

/**
 * Bedrock's runtime operations as the gate reads them: {@code Converse} and {@code ConverseStream}
 * (the Converse API, one request shape for every model) and {@code InvokeModel} and {@code
 * InvokeModelWithResponseStream} (the body in the model's own format). {@link GateInterceptor}
 * hands {@link #read} a JSON object made from the SDK's modelled request: {@code {"modelId",
 * "stream", "messages", "system", "inferenceConfig"}} for Converse, {@code {"modelId", "stream",
 * "invoke": <the model's body>}} for InvokeModel.
 *
 * <ul>
 *   <li>prompt tokens: <b>an estimate</b>, characters divided by 4, rounded up; Bedrock's models
 *       (Claude, Llama, Titan, Nova, Mistral, …) have no tokenizer published for Java. Converse:
 *       the text blocks of {@code messages} and {@code system} (images, documents and tools count
 *       nothing). InvokeModel: every string in the model's body, whatever its format (a few
 *       characters more than the prompt: the role names, the {@code anthropic_version}).
 *   <li>completion limit: Converse's {@code inferenceConfig.maxTokens}; InvokeModel's {@code
 *       max_tokens} (Claude, Mistral, Cohere), {@code max_gen_len} (Llama), {@code
 *       textGenerationConfig.maxTokenCount} (Titan) or {@code inferenceConfig.max_new_tokens}
 *       (Nova), whichever the body has. Bedrock reserves it with the input when the call starts.
 *       None when the request sets none.
 *   <li>usage: Converse's {@code usage.inputTokens} and {@code usage.outputTokens}; for
 *       InvokeModel, {@link GateInterceptor} writes its {@code x-amzn-bedrock-input-token-count}
 *       and {@code -output-token-count} headers in that shape. A stream's usage is read by {@link
 *       #tally}: ConverseStream's {@code metadata} event, InvokeModelWithResponseStream's last
 *       chunk ({@code amazon-bedrock-invocationMetrics}).
 * </ul>
 *
 * Stateless and thread-safe.
 */
public final class BedrockRuntime implements Dialect {

  /** The one instance. */
  public static final BedrockRuntime INSTANCE = new BedrockRuntime();

  static final ObjectMapper JSON = new ObjectMapper();

  private static final List<String> OPERATIONS =
      List.of("converse", "converse-stream", "invoke", "invoke-with-response-stream");

  /** Where each model family's body sets its completion limit, as a JSON pointer. */
  private static final List<String> MAX_TOKENS =
      List.of(
          "/max_tokens",
          "/max_gen_len",
          "/textGenerationConfig/maxTokenCount",
          "/inferenceConfig/max_new_tokens");

  /** About 4 characters a token, rounded up: Bedrock's models have no tokenizer for Java. */
  static final TokenCounter ESTIMATE = CharsPerToken.GENERAL;

  private BedrockRuntime() {}

  @Override
  public boolean gates(String method, List<String> pathSegments) {
    int n = pathSegments.size();
    return method.equals("POST")
        && n >= 3
        && pathSegments.get(n - 3).equals("model")
        && OPERATIONS.contains(pathSegments.get(n - 1));
  }

  @Override
  public ProviderCall read(ObjectNode body) {
    String model = Dialects.requireText(body, "modelId", "in the request");
    boolean stream = body.path("stream").asBoolean(false);
    if (body.has("invoke")) {
      JsonNode invoke = body.path("invoke");
      Long maxTokens = null;
      for (String pointer : MAX_TOKENS) {
        JsonNode limit = invoke.at(pointer);
        if (limit.canConvertToLong()) {
          maxTokens = Math.max(0, limit.asLong());
          break;
        }
      }
      StringBuilder strings = new StringBuilder();
      appendStrings(invoke, strings);
      return new ProviderCall(model, ESTIMATE.count(strings.toString()), maxTokens, stream);
    }
    StringBuilder text = new StringBuilder();
    for (JsonNode message : body.path("messages")) {
      text.append(Dialects.texts(message.path("content")));
    }
    text.append(Dialects.texts(body.path("system")));
    JsonNode maxTokens = body.path("inferenceConfig").path("maxTokens");
    return new ProviderCall(
        model,
        ESTIMATE.count(text.toString()),
        maxTokens.canConvertToLong() ? Math.max(0, maxTokens.asLong()) : null,
        stream);
  }

  @Override
  public boolean prepare(ObjectNode body, ProviderCall call) {
    return false;
  }

  @Override
  public Optional<Usage> usage(JsonNode answer) {
    return Dialects.usage(answer.path("usage"), "inputTokens", "outputTokens");
  }

  /**
   * A reader of one streamed answer's events, named by their {@code :event-type}: ConverseStream's
   * ({@code contentBlockDelta}, {@code metadata}, …) and InvokeModelWithResponseStream's ({@code
   * chunk}) alike.
   */
  @Override
  public StreamTally tally(ProviderCall call) {
    return new BedrockStreamTally(call);
  }

  /** The JSON {@link #read} reads for a Converse or ConverseStream request. */
  static byte[] converse(
      String modelId,
      boolean stream,
      List<Message> messages,
      List<SystemContentBlock> systemBlocks,
      InferenceConfiguration inference) {
    ObjectNode body = JSON.createObjectNode();
    body.put("modelId", modelId);
    body.put("stream", stream);
    ArrayNode out = body.putArray("messages");
    for (Message message : messages) {
      ObjectNode each = out.addObject();
      each.put("role", message.roleAsString());
      ArrayNode content = each.putArray("content");
      for (ContentBlock block : message.content()) {
        if (block.text() != null) {
          content.addObject().put("text", block.text());
        }
      }
    }
    ArrayNode system = body.putArray("system");
    for (SystemContentBlock block : systemBlocks) {
      if (block.text() != null) {
        system.addObject().put("text", block.text());
      }
    }
    if (inference != null && inference.maxTokens() != null) {
      body.putObject("inferenceConfig").put("maxTokens", inference.maxTokens());
    }
    return body.toString().getBytes(StandardCharsets.UTF_8);
  }

  /**
   * The JSON {@link #read} reads for an InvokeModel request: its body as JSON, or as one string
   * when it is not JSON (so that its characters still count).
   */
  static byte[] invoke(String modelId, boolean stream, SdkBytes modelBody) {
    ObjectNode body = JSON.createObjectNode();
    body.put("modelId", modelId);
    body.put("stream", stream);
    String text = modelBody == null ? "" : modelBody.asUtf8String();
    JsonNode parsed;
    try {
      parsed = JSON.readTree(text);
    } catch (IOException e) {
      parsed = null;
    }
    if (parsed == null || parsed.isMissingNode()) {
      body.put("invoke", text);
    } else {
      body.set("invoke", parsed);
    }
    return body.toString().getBytes(StandardCharsets.UTF_8);
  }

  /** A usage in the Converse shape, for the release. */
  static byte[] usageJson(long inputTokens, long outputTokens) {
    ObjectNode body = JSON.createObjectNode();
    ObjectNode out = body.putObject("usage");
    out.put("inputTokens", inputTokens);
    out.put("outputTokens", outputTokens);
    return body.toString().getBytes(StandardCharsets.UTF_8);
  }

  /** Appends every string in {@code node}, however deep, to {@code out}. */
  private static void appendStrings(JsonNode node, StringBuilder out) {
    if (node.isTextual()) {
      out.append(node.asText());
    }
    for (JsonNode element : node) {
      appendStrings(element, out);
    }
  }
}
