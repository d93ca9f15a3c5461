package io.backpressure.openai;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.backpressure.client.ProviderCall;
import io.backpressure.client.StreamTally;
import io.backpressure.client.Usage;
import io.backpressure.tokens.TokenCounter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * Follows a streamed chat completion: keeps the usage of the final chunk, and the text of the
 * content deltas so that a cut stream can be released with at least the tokens it delivered. An
 * {@code error} object in place of a chunk (OpenAI's and Azure OpenAI's way of ending a stream
 * begun with a 200) is a {@link #refusal}. One stream; not thread-safe.
 */
final class OpenAiStreamTally implements StreamTally {

  private static final ObjectMapper JSON = new ObjectMapper();

  /** The error types and codes of a rate limit or an exhausted quota. */
  private static final Set<String> RATE_LIMITS =
      Set.of("requests", "tokens", "rate_limit_exceeded", "insufficient_quota", "429");

  private final ProviderCall call;
  private final OpenAiChat dialect;
  private final StringBuilder streamed = new StringBuilder();
  private Usage reported;

  OpenAiStreamTally(ProviderCall call, OpenAiChat dialect) {
    this.call = call;
    this.dialect = dialect;
  }

  @Override
  public void onEvent(@Nullable String event, String data) {
    if (data.equals("[DONE]")) {
      return;
    }
    JsonNode chunk;
    try {
      chunk = JSON.readTree(data);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    Optional<Usage> usage = dialect.usage(chunk);
    if (usage.isPresent()) {
      reported = usage.get();
    }
    for (JsonNode choice : chunk.path("choices")) {
      JsonNode content = choice.path("delta").path("content");
      if (content.isTextual()) {
        streamed.append(content.asText());
      }
    }
  }

  /**
   * The status an {@code error} object in place of a chunk stands for: 429 for a rate limit or an
   * exhausted quota (OpenAI's {@code requests}, {@code tokens}, {@code rate_limit_exceeded}, {@code
   * insufficient_quota}; Azure's code {@code "429"}), 503 for an overload (OpenAI's "overloaded"
   * {@code server_error}, Azure's {@code ServiceUnavailable}), 400 for an {@code
   * invalid_request_error}, else 500. Null for a chunk.
   */
  @Override
  public @Nullable Integer refusal(@Nullable String event, String data) {
    if (data.equals("[DONE]")) {
      return null;
    }
    JsonNode error;
    try {
      error = JSON.readTree(data).path("error");
    } catch (IOException e) {
      return null;
    }
    if (!error.isObject()) {
      return null;
    }
    String type = error.path("type").asText("");
    String code = error.path("code").asText("");
    if (RATE_LIMITS.contains(type) || RATE_LIMITS.contains(code)) {
      return 429;
    }
    if (code.equals("ServiceUnavailable")
        || (type.equals("server_error")
            && error.path("message").asText("").toLowerCase(Locale.ROOT).contains("overloaded"))) {
      return 503;
    }
    return type.equals("invalid_request_error") ? 400 : 500;
  }

  @Override
  public Usage usage(boolean complete) {
    if (reported != null) {
      return reported;
    }
    long output = TokenCounter.forModel(call.model()).count(streamed.toString());
    return new Usage(call.promptTokens(), output);
  }
}
