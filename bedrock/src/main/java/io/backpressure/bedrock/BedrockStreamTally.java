package io.backpressure.bedrock;

import com.fasterxml.jackson.databind.JsonNode;
import io.backpressure.client.ProviderCall;
import io.backpressure.client.StreamTally;
import io.backpressure.client.Usage;
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
final class BedrockStreamTally implements StreamTally {

  private static final Set<String> TEXT_FIELDS = Set.of("text", "generation", "outputText");
  private static final String METRICS = "amazon-bedrock-invocationMetrics";

  private final ProviderCall call;
  private long streamedChars;
  private @Nullable Usage reported;

  BedrockStreamTally(ProviderCall call) {
    this.call = call;
  }

  @Override
  public void onEvent(@Nullable String event, String data) {
    JsonNode payload = parse(data);
    if ("metadata".equals(event)) {
      BedrockRuntime.INSTANCE.usage(payload).ifPresent(usage -> reported = usage);
    } else if ("contentBlockDelta".equals(event)) {
      JsonNode text = payload.path("delta").path("text");
      streamedChars += text.isTextual() ? text.asText().length() : 0;
    } else if ("chunk".equals(event) && payload.path("bytes").isTextual()) {
      JsonNode chunk =
          parse(
              new String(
                  Base64.getDecoder().decode(payload.path("bytes").asText()),
                  StandardCharsets.UTF_8));
      JsonNode metrics = chunk.path(METRICS);
      if (metrics.path("inputTokenCount").canConvertToLong()
          && metrics.path("outputTokenCount").canConvertToLong()) {
        reported =
            new Usage(
                Math.max(0, metrics.path("inputTokenCount").asLong()),
                Math.max(0, metrics.path("outputTokenCount").asLong()));
      }
      streamedChars += textChars(chunk);
    }
  }

  @Override
  public Usage usage(boolean complete) {
    if (reported != null) {
      return reported;
    }
    return new Usage(call.promptTokens(), BedrockRuntime.estimate(streamedChars));
  }

  private static JsonNode parse(String json) {
    try {
      return BedrockRuntime.JSON.readTree(json);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static long textChars(JsonNode node) {
    long chars = 0;
    for (var field : node.properties()) {
      JsonNode value = field.getValue();
      if (value.isTextual() && TEXT_FIELDS.contains(field.getKey())) {
        chars += value.asText().length();
      } else if (value.isContainerNode()) {
        chars += textChars(value);
      }
    }
    if (node.isArray()) {
      for (JsonNode element : node) {
        chars += textChars(element);
      }
    }
    return chars;
  }
}
