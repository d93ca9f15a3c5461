package io.backpressure.bedrock;

import com.fasterxml.jackson.databind.JsonNode;
import io.backpressure.client.Dialects;
import io.backpressure.client.JsonStreamTally;
import io.backpressure.client.ProviderCall;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * Follows one Bedrock event stream, event by event (the {@code :event-type} and the JSON payload of
 * each message):
 *
 * <ul>
 *   <li>ConverseStream: {@code metadata} reports the call's {@code usage} ({@code inputTokens},
 *       {@code outputTokens}); {@code contentBlockDelta}'s {@code delta.text} is the text streamed.
 *   <li>InvokeModelWithResponseStream: each {@code chunk}'s {@code bytes} (base64) is one event of
 *       the model's own stream; the last carries {@code amazon-bedrock-invocationMetrics} ({@code
 *       inputTokenCount}, {@code outputTokenCount}), for every model. The text streamed is what the
 *       fields named {@code text} (Claude, Mistral, Cohere), {@code generation} (Llama) and {@code
 *       outputText} (Titan) hold, however deep.
 * </ul>
 *
 * A stream cut or cancelled before its usage is released with the prompt's estimate and the
 * streamed text's (4 characters a token). One stream; not thread-safe.
 */
final class BedrockStreamTally extends JsonStreamTally {

  private static final Set<String> TEXT_FIELDS = Set.of("text", "generation", "outputText");
  private static final String METRICS = "amazon-bedrock-invocationMetrics";

  BedrockStreamTally(ProviderCall call) {
    super(call, BedrockRuntime.ESTIMATE);
  }

  @Override
  protected void onJson(@Nullable String event, JsonNode payload) {
    if ("metadata".equals(event)) {
      BedrockRuntime.INSTANCE.usage(payload).ifPresent(this::report);
    } else if ("contentBlockDelta".equals(event)) {
      JsonNode text = payload.path("delta").path("text");
      if (text.isTextual()) {
        streamed(text.asText());
      }
    } else if ("chunk".equals(event) && payload.path("bytes").isTextual()) {
      JsonNode chunk =
          parse(
              new String(
                  Base64.getDecoder().decode(payload.path("bytes").asText()),
                  StandardCharsets.UTF_8));
      Dialects.usage(chunk.path(METRICS), "inputTokenCount", "outputTokenCount")
          .ifPresent(this::report);
      streamText(chunk);
    }
  }

  private static JsonNode parse(String json) {
    try {
      return BedrockRuntime.JSON.readTree(json);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Hands over the strings of the fields named in {@link #TEXT_FIELDS}, however deep. */
  private void streamText(JsonNode node) {
    for (var field : node.properties()) {
      JsonNode value = field.getValue();
      if (value.isTextual() && TEXT_FIELDS.contains(field.getKey())) {
        streamed(value.asText());
      } else if (value.isContainerNode()) {
        streamText(value);
      }
    }
    if (node.isArray()) {
      for (JsonNode element : node) {
        streamText(element);
      }
    }
  }
}
