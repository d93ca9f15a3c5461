package io.backpressure.mock;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.backpressure.mock.limit.LimitSpec;
import io.backpressure.mock.limit.Verdict;
import java.time.Instant;
import org.eclipse.jetty.http.HttpFields;

/**
 * OpenAI's chat completions format: {@code POST /v1/chat/completions} with {@code model}, {@code
 * messages} and optionally {@code max_completion_tokens} or its older name {@code max_tokens} (the
 * former wins when both are set); answers carry {@code usage}, errors are {@code {"error":
 * {message, type, param, code}}}, and the limits go in {@code x-ratelimit-*} headers with {@code
 * retry-after} (seconds) and {@code retry-after-ms} on 429.
 *
 * <p>With {@code "stream": true} the answer is a series of {@code data:} events, each a {@code
 * chat.completion.chunk}: the first with the assistant's role, then the text in pieces, then one
 * with the finish reason and an empty delta, then {@code data: [DONE]}. When {@code
 * stream_options.include_usage} is true every chunk carries {@code "usage": null} and one more
 * chunk, with no choices, carries the usage before {@code [DONE]}, as OpenAI documents.
 */
final class OpenAiDialect implements Dialect {

  private static final JsonNodeFactory JSON = JsonNodeFactory.instance;

  @Override
  public ParsedCall parse(JsonNode root) throws BadRequestException {
    String model = RequestFields.requiredText(root, "model");
    JsonNode messages = RequestFields.requiredArray(root, "messages");
    long chars = RequestFields.messagesChars(messages);
    Long maxTokens = RequestFields.tokenLimit(root, "max_completion_tokens");
    Long legacyMaxTokens = RequestFields.tokenLimit(root, "max_tokens");
    boolean stream = RequestFields.optionalBoolean(root, "stream");
    JsonNode options = root.get("stream_options");
    boolean includeUsage = false;
    if (options != null && !options.isNull()) {
      if (!stream) {
        throw new BadRequestException(
            "The 'stream_options' parameter is only allowed when 'stream' is enabled.",
            "stream_options",
            "invalid_value");
      }
      if (!options.isObject()) {
        throw BadRequestException.invalidType("stream_options", "an object");
      }
      includeUsage = RequestFields.optionalBoolean(options, "include_usage", "stream_options.");
    }
    return new ParsedCall(
        model,
        ParsedCall.estimateTokens(chars),
        maxTokens != null ? maxTokens : legacyMaxTokens,
        stream,
        includeUsage);
  }

  @Override
  public ObjectNode completion(
      ParsedCall call, long id, long createdEpochSeconds, int completionTokens, boolean truncated) {
    ObjectNode root = JSON.objectNode();
    root.put("id", "chatcmpl-mock-" + id);
    root.put("object", "chat.completion");
    root.put("created", createdEpochSeconds);
    root.put("model", call.model());
    ObjectNode choice = root.putArray("choices").addObject();
    choice.put("index", 0);
    ObjectNode message = choice.putObject("message");
    message.put("role", "assistant");
    message.put("content", Dialect.completionText(completionTokens));
    message.putNull("refusal");
    choice.putNull("logprobs");
    choice.put("finish_reason", truncated ? "length" : "stop");
    usage(root.putObject("usage"), call, completionTokens);
    root.putNull("system_fingerprint");
    return root;
  }

  @Override
  public String streamStart(ParsedCall call, long id, long createdEpochSeconds) {
    ObjectNode chunk = chunk(call, id, createdEpochSeconds);
    ObjectNode delta = choice(chunk).putObject("delta");
    delta.put("role", "assistant");
    delta.put("content", "");
    delta.putNull("refusal");
    return Dialect.dataEvent(chunk.toString());
  }

  @Override
  public String streamDelta(ParsedCall call, long id, long createdEpochSeconds, String text) {
    ObjectNode chunk = chunk(call, id, createdEpochSeconds);
    choice(chunk).putObject("delta").put("content", text);
    return Dialect.dataEvent(chunk.toString());
  }

  @Override
  public String streamEnd(
      ParsedCall call, long id, long createdEpochSeconds, int completionTokens, boolean truncated) {
    ObjectNode last = chunk(call, id, createdEpochSeconds);
    ObjectNode choice = choice(last);
    choice.putObject("delta");
    choice.put("finish_reason", truncated ? "length" : "stop");
    StringBuilder events = new StringBuilder(Dialect.dataEvent(last.toString()));
    if (call.includeUsage()) {
      ObjectNode usageChunk = chunk(call, id, createdEpochSeconds);
      usageChunk.putArray("choices");
      usage(usageChunk.putObject("usage"), call, completionTokens);
      events.append(Dialect.dataEvent(usageChunk.toString()));
    }
    return events.append(Dialect.dataEvent("[DONE]")).toString();
  }

  /** A {@code chat.completion.chunk} without choices; {@code "usage": null} when usage is asked. */
  private static ObjectNode chunk(ParsedCall call, long id, long createdEpochSeconds) {
    ObjectNode chunk = JSON.objectNode();
    chunk.put("id", "chatcmpl-mock-" + id);
    chunk.put("object", "chat.completion.chunk");
    chunk.put("created", createdEpochSeconds);
    chunk.put("model", call.model());
    chunk.putNull("system_fingerprint");
    if (call.includeUsage()) {
      chunk.putNull("usage");
    }
    return chunk;
  }

  /** Adds the chunk's one choice, not finished, and returns it. */
  private static ObjectNode choice(ObjectNode chunk) {
    ObjectNode choice = chunk.putArray("choices").addObject();
    choice.put("index", 0);
    choice.putNull("logprobs");
    choice.putNull("finish_reason");
    return choice;
  }

  private static void usage(ObjectNode usage, ParsedCall call, int completionTokens) {
    usage.put("prompt_tokens", call.promptTokens());
    usage.put("completion_tokens", completionTokens);
    usage.put("total_tokens", call.promptTokens() + completionTokens);
  }

  @Override
  public ObjectNode serverError() {
    return error(
        "The server had an error while processing your request. Sorry about that!",
        "server_error",
        null,
        null);
  }

  @Override
  public ObjectNode overloaded() {
    return error(
        "The engine is currently overloaded, please try again later.", "server_error", null, null);
  }

  /**
   * The overload error as the data of one more event, with no {@code [DONE]} after it: OpenAI ends
   * a stream under way with an {@code error} object in place of a chunk, which openai-java throws
   * as its {@code SseException}.
   */
  @Override
  public byte[] streamOverloaded() {
    return streamBytes(Dialect.dataEvent(overloaded().toString()));
  }

  @Override
  public ObjectNode rateLimited(
      String dimension, String message, LimitSpec spec, long retryAfterNanos) {
    return error(message, dimension, null, "rate_limit_exceeded");
  }

  /**
   * OpenAI's answer to a spent requests-per-day (RPD) or tokens-per-day (TPD) limit: a 429 {@code
   * rate_limit_exceeded} whose {@code type} names the dimension and whose message names the daily
   * limit, with {@code retry-after} and {@code retry-after-ms} until the next day starts.
   */
  @Override
  public ObjectNode dayLimited(
      HttpFields.Mutable headers, ParsedCall call, DayWindows.Refusal refusal, Instant now) {
    long wait = refusal.nanosUntilReset(now);
    headers.put("retry-after", Long.toString(RateLimitFormat.ceilSeconds(wait)));
    headers.put("retry-after-ms", Long.toString(RateLimitFormat.ceilMillis(wait)));
    String message =
        "Rate limit reached for "
            + call.model()
            + " in organization org-mock on "
            + (refusal.requests() ? "requests per day (RPD)" : "tokens per day (TPD)")
            + ": Limit "
            + refusal.limit()
            + ", Used "
            + refusal.used()
            + ", Requested "
            + refusal.requested()
            + ". Please try again in "
            + RateLimitFormat.duration(wait)
            + ". Visit https://platform.openai.com/account/rate-limits to learn more.";
    return error(message, refusal.dimension(), null, "rate_limit_exceeded");
  }

  @Override
  public ObjectNode clientError(String message, String param, String code) {
    return error(message, "invalid_request_error", param, code);
  }

  @Override
  public void rateLimitHeaders(
      HttpFields.Mutable headers,
      LimitSpec requests,
      LimitSpec tokens,
      Verdict verdict,
      long nowEpochMillis) {
    OpenAiRateLimitHeaders.of(requests, tokens, verdict).forEach(headers::put);
  }

  private static ObjectNode error(String message, String type, String param, String code) {
    ObjectNode root = JSON.objectNode();
    ObjectNode error = root.putObject("error");
    error.put("message", message);
    error.put("type", type);
    error.put("param", param);
    error.put("code", code);
    return root;
  }
}
