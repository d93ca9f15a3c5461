package io.backpressure.openai;

import com.fasterxml.jackson.databind.JsonNode;
import io.backpressure.client.JsonStreamTally;
import io.backpressure.client.ProviderCall;
import io.backpressure.tokens.TokenCounter;
import java.util.Locale;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * Follows a streamed chat completion: keeps the usage of the final chunk, and the text of the
 * content deltas so that a cut stream can be released with at least the tokens it delivered. An
 * {@code error} object in place of a chunk (OpenAI's and Azure OpenAI's way of ending a stream
 * begun with a 200) is a {@link #refusal}. One stream; not thread-safe.
 */
final class OpenAiStreamTally extends JsonStreamTally {

  /** The error types and codes of a rate limit or an exhausted quota. */
  private static final Set<String> RATE_LIMITS =
      Set.of("requests", "tokens", "rate_limit_exceeded", "insufficient_quota", "429");

  OpenAiStreamTally(ProviderCall call) {
    super(call, TokenCounter.forModel(call.model()));
  }

  /** Each chunk, skipping the {@code [DONE]} that ends the stream. */
  @Override
  public void onEvent(@Nullable String event, String data) {
    if (!data.equals("[DONE]")) {
      super.onEvent(event, data);
    }
  }

  @Override
  protected void onJson(@Nullable String event, JsonNode chunk) {
    OpenAiChat.INSTANCE.usage(chunk).ifPresent(this::report);
    for (JsonNode choice : chunk.path("choices")) {
      JsonNode content = choice.path("delta").path("content");
      if (content.isTextual()) {
        streamed(content.asText());
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
  protected @Nullable Integer refusal(@Nullable String event, JsonNode data) {
    JsonNode error = data.path("error");
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
}
