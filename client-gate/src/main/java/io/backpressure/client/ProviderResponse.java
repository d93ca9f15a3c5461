package io.backpressure.client;

import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * One answer of the provider to a gated call, as handed to {@link ProviderFeedback}.
 *
 * <p>A value, safe to read from any thread.
 *
 * @param target the gate's target the call was admitted under
 * @param model the model the request named
 * @param statusCode the HTTP status
 * @param headers the response headers, names in lower case (the rate-limit headers among them:
 *     {@code x-ratelimit-*}, {@code anthropic-ratelimit-*}, {@code retry-after}, {@code
 *     retry-after-ms})
 * @param body the body of an answer that is not a success (status 400 or more), which is where the
 *     Gemini API, Bedrock and the error types of OpenAI and Anthropic say why the call was refused;
 *     null for a success, whose body goes to the caller unread
 * @param midStream true when this is an error that ended a stream the provider had begun with a
 *     success (Anthropic's {@code event: error}, an exception message in Bedrock's event stream):
 *     {@code statusCode} is the status that error stands for, and {@code headers} are only what the
 *     error itself carries, since the answer's headers went with the 200
 */
public record ProviderResponse(
    String target,
    String model,
    int statusCode,
    Map<String, List<String>> headers,
    @Nullable String body,
    boolean midStream) {

  public ProviderResponse {
    headers = Map.copyOf(headers);
  }

  /** An answer given before any stream began, with its body. */
  public ProviderResponse(
      String target,
      String model,
      int statusCode,
      Map<String, List<String>> headers,
      @Nullable String body) {
    this(target, model, statusCode, headers, body, false);
  }

  /** An answer without its body. */
  public ProviderResponse(
      String target, String model, int statusCode, Map<String, List<String>> headers) {
    this(target, model, statusCode, headers, null, false);
  }

  /** The first value of header {@code name} (any case), or null. */
  public @Nullable String header(String name) {
    List<String> values = headers.get(name.toLowerCase(Locale.ROOT));
    return values == null || values.isEmpty() ? null : values.get(0);
  }
}
