package io.backpressure.anthropic;

import com.fasterxml.jackson.databind.JsonNode;
import io.backpressure.client.JsonStreamTally;
import io.backpressure.client.ProviderCall;
import io.backpressure.client.Usage;
import io.backpressure.core.feedback.ProviderSignal;
import io.backpressure.tokens.TokenCounter;
import org.jspecify.annotations.Nullable;

/**
 * Follows a streamed message: the input tokens of {@code message_start}, the cumulative output
 * tokens of the last {@code message_delta}, and the text of the content deltas so that a stream cut
 * before its {@code message_delta} is released with at least the tokens it delivered. An {@code
 * error} event is a {@link #refusal}. One stream; not thread-safe.
 */
final class AnthropicStreamTally extends JsonStreamTally {

  private @Nullable Long input;
  private long output;
  private boolean outputReported;

  AnthropicStreamTally(ProviderCall call) {
    super(call, TokenCounter.forModel(call.model()));
  }

  @Override
  protected void onJson(@Nullable String event, JsonNode json) {
    switch (json.path("type").asText(event == null ? "" : event)) {
      case "message_start" -> {
        JsonNode usage = json.path("message").path("usage");
        if (usage.path("input_tokens").canConvertToLong()) {
          input = AnthropicMessages.input(usage);
        }
        output = Math.max(output, usage.path("output_tokens").asLong(0));
      }
      case "message_delta" -> {
        JsonNode usage = json.path("usage");
        if (usage.path("input_tokens").canConvertToLong()) {
          input = AnthropicMessages.input(usage);
        }
        if (usage.path("output_tokens").canConvertToLong()) {
          output = Math.max(0, usage.path("output_tokens").asLong());
          outputReported = true;
        }
      }
      case "content_block_delta" -> {
        JsonNode delta = json.path("delta");
        if (delta.path("text").isTextual()) {
          streamed(delta.path("text").asText());
        } else if (delta.path("partial_json").isTextual()) {
          streamed(delta.path("partial_json").asText());
        }
      }
      default -> {}
    }
  }

  /**
   * An {@code error} event, which Anthropic sends in place of the rest of a stream that began with
   * a 200 (an {@code overloaded_error} most often): the status Anthropic answers its error type
   * with before a stream, 500 for a type it does not document.
   */
  @Override
  protected @Nullable Integer refusal(@Nullable String event, JsonNode json) {
    if (!"error".equals(json.path("type").asText(event == null ? "" : event))) {
      return null;
    }
    return switch (json.path("error").path("type").asText("")) {
      case "invalid_request_error" -> 400;
      case "authentication_error" -> 401;
      case "permission_error" -> 403;
      case "not_found_error" -> 404;
      case "request_too_large" -> 413;
      case "rate_limit_error" -> 429;
      case "overloaded_error" -> ProviderSignal.OVERLOADED;
      default -> 500;
    };
  }

  /**
   * The input reported (else the prompt estimate) and the output reported by {@code message_delta};
   * before it, at least the tokens delivered.
   */
  @Override
  public Usage usage(boolean complete) {
    long in = input != null ? input : call().promptTokens();
    return new Usage(in, outputReported ? output : Math.max(output, streamedTokens()));
  }
}
