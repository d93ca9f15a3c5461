package io.backpressure.gemini;

import com.fasterxml.jackson.databind.JsonNode;
import io.backpressure.client.JsonStreamTally;
import io.backpressure.client.ProviderCall;
import org.jspecify.annotations.Nullable;

/**
 * Follows a streamed {@code generateContent}: each event is a whole {@code
 * GenerateContentResponse}; keeps the latest {@code usageMetadata} that counts the output (the last
 * chunk's is the call's), and the text delivered, so that a cut stream is released with at least
 * the estimated tokens it delivered. A {@code google.rpc.Status} in place of a response (the Gemini
 * API's way of ending a stream begun with a 200) is a {@link #refusal}. One stream; not
 * thread-safe.
 */
final class GeminiStreamTally extends JsonStreamTally {

  GeminiStreamTally(ProviderCall call) {
    super(call, GeminiGenerate.ESTIMATE);
  }

  @Override
  protected void onJson(@Nullable String event, JsonNode chunk) {
    if (chunk.path("usageMetadata").has("candidatesTokenCount")) {
      GeminiGenerate.INSTANCE.usage(chunk).ifPresent(this::report);
    }
    for (JsonNode candidate : chunk.path("candidates")) {
      streamed(GeminiGenerate.partsText(candidate.path("content")));
    }
  }

  /**
   * The status of an {@code error} in place of a response: its {@code code} (503 for {@code
   * UNAVAILABLE}, 429 for {@code RESOURCE_EXHAUSTED}), 500 when it has none in the HTTP range, as
   * google-genai reads it. Null for a response.
   */
  @Override
  protected @Nullable Integer refusal(@Nullable String event, JsonNode data) {
    JsonNode error = data.path("error");
    if (!error.isObject()) {
      return null;
    }
    int code = error.path("code").asInt(500);
    return code >= 400 && code <= 599 ? code : 500;
  }
}
