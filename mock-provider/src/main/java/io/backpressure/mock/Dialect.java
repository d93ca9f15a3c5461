package io.backpressure.mock;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.backpressure.mock.limit.LimitSpec;
import io.backpressure.mock.limit.Verdict;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import org.eclipse.jetty.http.HttpFields;

/**
 * One provider's wire format: how a completion request reads, and how answers (whole or streamed as
 * server-sent events), errors and rate-limit headers are written. Implementations are stateless and
 * thread-safe.
 */
sealed interface Dialect
    permits OpenAiDialect,
        AnthropicDialect,
        GeminiDialect,
        AzureDialect,
        BedrockDialect,
        BedrockInvokeDialect {

  /** The request body's meaning, or a 400 naming the field at fault. */
  ParsedCall parse(JsonNode root) throws BadRequestException;

  /**
   * The request's meaning from its path, query ({@code null} when none) and body; the body alone
   * unless the dialect names the model or the stream in the path, as the Gemini API does.
   */
  default ParsedCall parse(String path, String query, JsonNode root) throws BadRequestException {
    return parse(root);
  }

  /** The body of a successful answer. */
  ObjectNode completion(
      ParsedCall call, long id, long createdEpochSeconds, int completionTokens, boolean truncated);

  /**
   * Adds the headers of a whole (not streamed) successful answer that depend on its usage; none by
   * default.
   */
  default void answerHeaders(HttpFields.Mutable headers, ParsedCall call, int completionTokens) {}

  /** The content type of a streamed answer; server-sent events by default. */
  default String streamContentType() {
    return "text/event-stream; charset=utf-8";
  }

  /**
   * The bytes on the wire of {@code events}, as returned by the stream methods: their UTF-8 text by
   * default, for server-sent events.
   */
  default byte[] streamBytes(String events) {
    return events.getBytes(StandardCharsets.UTF_8);
  }

  /** The events that open a streamed answer, before any text. */
  String streamStart(ParsedCall call, long id, long createdEpochSeconds);

  /** The event carrying the next piece of the streamed text. */
  String streamDelta(ParsedCall call, long id, long createdEpochSeconds, String text);

  /** The events that close a streamed answer: why it stopped, its usage, the end marker. */
  String streamEnd(
      ParsedCall call, long id, long createdEpochSeconds, int completionTokens, boolean truncated);

  /**
   * The body of a 429 naming the bound dimension.
   *
   * @param spec the bound dimension's limit ({@code null} when not known)
   * @param retryAfterNanos when retrying can succeed; negative when it never can (the call is
   *     larger than the limit)
   */
  ObjectNode rateLimited(String dimension, String message, LimitSpec spec, long retryAfterNanos);

  /**
   * The status of the answer to a call larger than a limit, which retrying can never help: 429 by
   * default (OpenAI's and Anthropic's "request too large"); Bedrock's 400 {@code
   * ValidationException}. Its body is {@link #rateLimited} with a negative {@code retryAfterNanos}.
   */
  default int neverFitsStatus() {
    return 429;
  }

  /**
   * The answer to a call refused because a per-day cap ({@link DailyCaps}) is spent, as this
   * provider answers a spent daily quota: adds its headers to {@code headers} and returns its body,
   * sent with {@link #dayLimitedStatus()}.
   *
   * @param now when the refusal is answered (wall clock), for the time left until {@code
   *     refusal.resetAt()}
   */
  ObjectNode dayLimited(
      HttpFields.Mutable headers, ParsedCall call, DayWindows.Refusal refusal, Instant now);

  /** The status of the {@link #dayLimited} answer: 429 by default; Anthropic's 400. */
  default int dayLimitedStatus() {
    return 429;
  }

  /**
   * The body of a 400 (or another client error) with {@code message}, {@code param}, {@code code}.
   */
  ObjectNode clientError(String message, String param, String code);

  /** The body of a 500 that has nothing to do with rate limits. */
  ObjectNode serverError();

  /**
   * The status of the answer to a call refused because the provider is overloaded for everyone (not
   * because of the caller's limits); 503 by default.
   */
  default int overloadedStatus() {
    return 503;
  }

  /** The body of the {@link #overloadedStatus() overloaded} answer. */
  ObjectNode overloaded();

  /**
   * The bytes that end a stream under way when the provider becomes overloaded, in the provider's
   * own shape: Anthropic's {@code event: error} with its {@code overloaded_error}, Bedrock's {@code
   * serviceUnavailableException} message, an {@code error} object in place of an OpenAI or Azure
   * chunk, a {@code google.rpc.Status} in place of a Gemini response; null (the default) for a
   * provider whose streams under way run to their end.
   */
  default byte[] streamOverloaded() {
    return null;
  }

  /**
   * The bytes that end a stream under way with the provider's rate-limit error (the {@code
   * rateLimitedMidStream} fault): Anthropic's {@code event: error} with its {@code
   * rate_limit_error}; null (the default) for a provider whose streams under way run to their end.
   */
  default byte[] streamRateLimited() {
    return null;
  }

  /**
   * Adds the headers that every error answer of this provider carries besides the rate-limit ones:
   * none by default; Bedrock's error type.
   *
   * @param status the answer's status, 400 or more
   * @param code the machine-readable reason the body carries, or {@code null}
   */
  default void errorHeaders(HttpFields.Mutable headers, int status, String code) {}

  /**
   * Adds the rate-limit headers describing {@code verdict} (state after the decision), for the caps
   * {@code requests} and {@code tokens} in force then (either {@code null} when not capped); on a
   * rejection that retrying can help, also the retry-after headers.
   */
  void rateLimitHeaders(
      HttpFields.Mutable headers,
      LimitSpec requests,
      LimitSpec tokens,
      Verdict verdict,
      long nowEpochMillis);

  /** Text of {@code tokens} completion tokens at about 4 characters each. */
  static String completionText(int tokens) {
    String[] words = {"the ", "cat ", "sat ", "on ", "a ", "mat ", "and ", "ran "};
    StringBuilder text = new StringBuilder(tokens * 4);
    int chars = tokens * 4;
    for (int i = 0; text.length() < chars; i++) {
      text.append(words[i % words.length]);
    }
    text.setLength(chars);
    return text.toString();
  }

  /** One server-sent event with only a {@code data} field. */
  static String dataEvent(String data) {
    return "data: " + data + "\n\n";
  }

  /** One server-sent event named {@code name} with {@code data} as JSON. */
  static String namedEvent(String name, JsonNode data) {
    return "event: " + name + "\ndata: " + data + "\n\n";
  }
}
