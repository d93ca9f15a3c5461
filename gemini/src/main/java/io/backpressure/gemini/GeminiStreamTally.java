package io.backpressure.gemini;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.backpressure.client.ProviderCall;
import io.backpressure.client.StreamTally;
import io.backpressure.client.Usage;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * Follows a streamed {@code generateContent}: each event is a whole {@code
 * GenerateContentResponse}; keeps the latest {@code usageMetadata} that counts the output (the last
 * chunk's is the call's), and the characters of the text delivered, so that a cut stream is
 * released with at least the estimated tokens it delivered. A {@code google.rpc.Status} in place of
 * a response (the Gemini API's way of ending a stream begun with a 200) is a {@link #refusal}. One
 * stream; not thread-safe.
 */
final class GeminiStreamTally implements StreamTally {

  private static final ObjectMapper JSON = new ObjectMapper();

  private final ProviderCall call;
  private final GeminiGenerate dialect;
  private long streamedChars;
  private Usage reported;

  GeminiStreamTally(ProviderCall call, GeminiGenerate dialect) {
    this.call = call;
    this.dialect = dialect;
  }

  @Override
  public void onEvent(@Nullable String event, String data) {
    JsonNode chunk;
    try {
      chunk = JSON.readTree(data);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    if (chunk.path("usageMetadata").has("candidatesTokenCount")) {
      Optional<Usage> usage = dialect.usage(chunk);
      usage.ifPresent(u -> reported = u);
    }
    for (JsonNode candidate : chunk.path("candidates")) {
      streamedChars += GeminiGenerate.partsChars(candidate.path("content"));
    }
  }

  /**
   * The status of an {@code error} in place of a response: its {@code code} (503 for {@code
   * UNAVAILABLE}, 429 for {@code RESOURCE_EXHAUSTED}), 500 when it has none in the HTTP range, as
   * google-genai reads it. Null for a response.
   */
  @Override
  public @Nullable Integer refusal(@Nullable String event, String data) {
    JsonNode error;
    try {
      error = JSON.readTree(data).path("error");
    } catch (IOException e) {
      return null;
    }
    if (!error.isObject()) {
      return null;
    }
    int code = error.path("code").asInt(500);
    return code >= 400 && code <= 599 ? code : 500;
  }

  @Override
  public Usage usage(boolean complete) {
    if (reported != null) {
      return reported;
    }
    return new Usage(call.promptTokens(), GeminiGenerate.estimateTokens(streamedChars));
  }
}
