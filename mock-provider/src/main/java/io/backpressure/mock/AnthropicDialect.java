package io.backpressure.mock;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.backpressure.mock.limit.LimitSpec;
import io.backpressure.mock.limit.Verdict;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import org.eclipse.jetty.http.HttpFields;

/**
 * Anthropic's messages format: {@code POST /v1/messages} with {@code model}, {@code max_tokens}
 * (required), {@code messages} and an optional {@code system} prompt; answers carry {@code usage}
 * with input and output tokens, errors are {@code {"type":"error","error":{type, message}}}, and
 * the limits go in {@code anthropic-ratelimit-*} headers whose resets are RFC 3339 instants, with
 * {@code retry-after} (seconds) on 429. The bound dimension is named in the 429's message. An
 * overloaded provider answers 529 {@code overloaded_error}, with no rate-limit headers.
 *
 * <p>With {@code "stream": true} the answer is Anthropic's event stream: {@code message_start} (the
 * message without content, its usage giving the input tokens), {@code content_block_start}, {@code
 * ping}, one {@code content_block_delta} per piece of text, {@code content_block_stop}, {@code
 * message_delta} with the stop reason and the output tokens, and {@code message_stop}.
 */
final class AnthropicDialect implements Dialect {

  private static final JsonNodeFactory JSON = JsonNodeFactory.instance;
  private static final DateTimeFormatter REGAIN_TIME = DateTimeFormatter.ofPattern("HH:mm");

  @Override
  public ParsedCall parse(JsonNode root) throws BadRequestException {
    String model = RequestFields.requiredText(root, "model");
    JsonNode messages = RequestFields.requiredArray(root, "messages");
    long chars =
        RequestFields.messagesChars(messages)
            + RequestFields.contentChars(root.get("system"), "system");
    Long maxTokens = RequestFields.tokenLimit(root, "max_tokens");
    if (maxTokens == null) {
      throw BadRequestException.missing("max_tokens");
    }
    boolean stream = RequestFields.optionalBoolean(root, "stream");
    return new ParsedCall(model, ParsedCall.estimateTokens(chars), maxTokens, stream, false);
  }

  @Override
  public ObjectNode completion(
      ParsedCall call, long id, long createdEpochSeconds, int completionTokens, boolean truncated) {
    ObjectNode root = JSON.objectNode();
    root.put("id", "msg_mock_" + id);
    root.put("type", "message");
    root.put("role", "assistant");
    root.put("model", call.model());
    ObjectNode text = root.putArray("content").addObject();
    text.put("type", "text");
    text.put("text", Dialect.completionText(completionTokens));
    root.put("stop_reason", stopReason(truncated));
    root.putNull("stop_sequence");
    usage(root.putObject("usage"), call.promptTokens(), completionTokens);
    return root;
  }

  @Override
  public String streamStart(ParsedCall call, long id, long createdEpochSeconds) {
    ObjectNode start = event("message_start");
    ObjectNode message = start.putObject("message");
    message.put("id", "msg_mock_" + id);
    message.put("type", "message");
    message.put("role", "assistant");
    message.put("model", call.model());
    message.putArray("content");
    message.putNull("stop_reason");
    message.putNull("stop_sequence");
    usage(message.putObject("usage"), call.promptTokens(), 0);
    ObjectNode blockStart = event("content_block_start");
    blockStart.put("index", 0);
    blockStart.putObject("content_block").put("type", "text").put("text", "");
    return Dialect.namedEvent("message_start", start)
        + Dialect.namedEvent("content_block_start", blockStart)
        + Dialect.namedEvent("ping", event("ping"));
  }

  @Override
  public String streamDelta(ParsedCall call, long id, long createdEpochSeconds, String text) {
    ObjectNode delta = event("content_block_delta");
    delta.put("index", 0);
    delta.putObject("delta").put("type", "text_delta").put("text", text);
    return Dialect.namedEvent("content_block_delta", delta);
  }

  @Override
  public String streamEnd(
      ParsedCall call, long id, long createdEpochSeconds, int completionTokens, boolean truncated) {
    ObjectNode blockStop = event("content_block_stop");
    blockStop.put("index", 0);
    ObjectNode messageDelta = event("message_delta");
    ObjectNode delta = messageDelta.putObject("delta");
    delta.put("stop_reason", stopReason(truncated));
    delta.putNull("stop_sequence");
    usage(messageDelta.putObject("usage"), call.promptTokens(), completionTokens);
    return Dialect.namedEvent("content_block_stop", blockStop)
        + Dialect.namedEvent("message_delta", messageDelta)
        + Dialect.namedEvent("message_stop", event("message_stop"));
  }

  private static ObjectNode event(String type) {
    return JSON.objectNode().put("type", type);
  }

  private static String stopReason(boolean truncated) {
    return truncated ? "max_tokens" : "end_turn";
  }

  /** Anthropic's usage object; the cache counts are always 0 here. */
  private static void usage(ObjectNode usage, long inputTokens, long outputTokens) {
    usage.put("input_tokens", inputTokens);
    usage.put("cache_creation_input_tokens", 0);
    usage.put("cache_read_input_tokens", 0);
    usage.put("output_tokens", outputTokens);
  }

  @Override
  public ObjectNode serverError() {
    return error("api_error", "Internal server error");
  }

  /** Anthropic's 529: overloaded for everyone, a status of its own and no {@code retry-after}. */
  @Override
  public int overloadedStatus() {
    return 529;
  }

  @Override
  public ObjectNode overloaded() {
    return error("overloaded_error", "Overloaded");
  }

  @Override
  public byte[] streamOverloaded() {
    return streamBytes(Dialect.namedEvent("error", overloaded()));
  }

  /**
   * A {@code rate_limit_error} event in place of the rest of the stream, with the message Anthropic
   * sends for a per-minute limit; unlike a 429 before the stream, it can carry no {@code
   * retry-after}.
   */
  @Override
  public byte[] streamRateLimited() {
    return streamBytes(
        Dialect.namedEvent(
            "error",
            error(
                "rate_limit_error",
                "Number of request tokens has exceeded your per-minute rate limit"
                    + " (https://docs.anthropic.com/en/api/rate-limits); see the response headers"
                    + " for current usage. Please reduce the prompt length or the maximum tokens"
                    + " requested, or try again later.")));
  }

  @Override
  public ObjectNode rateLimited(
      String dimension, String message, LimitSpec spec, long retryAfterNanos) {
    return error("rate_limit_error", message);
  }

  /**
   * Anthropic's answer to a reached usage limit: a 400 {@code invalid_request_error} that says when
   * access comes back ("You will regain access on 2026-12-08 at 00:00 UTC."), with no rate-limit
   * headers and no {@code retry-after}.
   */
  @Override
  public ObjectNode dayLimited(
      HttpFields.Mutable headers, ParsedCall call, DayWindows.Refusal refusal, Instant now) {
    LocalDateTime reset = LocalDateTime.ofInstant(refusal.resetAt(), ZoneOffset.UTC);
    return error(
        "invalid_request_error",
        "You have reached your specified API usage limits. You will regain access on "
            + reset.toLocalDate()
            + " at "
            + REGAIN_TIME.format(reset)
            + " UTC.");
  }

  @Override
  public int dayLimitedStatus() {
    return 400;
  }

  @Override
  public ObjectNode clientError(String message, String param, String code) {
    return error("invalid_request_error", message);
  }

  @Override
  public void rateLimitHeaders(
      HttpFields.Mutable headers,
      LimitSpec requests,
      LimitSpec tokens,
      Verdict verdict,
      long nowEpochMillis) {
    dimensionHeaders(
        headers,
        "requests",
        requests,
        verdict.remainingRequests(),
        verdict.resetRequestsNanos(),
        nowEpochMillis);
    dimensionHeaders(
        headers,
        "tokens",
        tokens,
        verdict.remainingTokens(),
        verdict.resetTokensNanos(),
        nowEpochMillis);
    if (!verdict.admitted() && !verdict.neverFits()) {
      headers.put(
          "retry-after", Long.toString(RateLimitFormat.ceilSeconds(verdict.retryAfterNanos())));
    }
  }

  private static void dimensionHeaders(
      HttpFields.Mutable headers,
      String dimension,
      LimitSpec spec,
      double remaining,
      long resetNanos,
      long nowEpochMillis) {
    if (spec == null) {
      return;
    }
    String prefix = "anthropic-ratelimit-" + dimension;
    Instant reset =
        Instant.ofEpochMilli(nowEpochMillis + RateLimitFormat.ceilMillis(resetNanos))
            .truncatedTo(ChronoUnit.MILLIS);
    headers.put(prefix + "-limit", RateLimitFormat.limit(spec.limitPerPeriod()));
    headers.put(prefix + "-remaining", RateLimitFormat.remaining(remaining));
    headers.put(prefix + "-reset", reset.toString());
  }

  private static ObjectNode error(String type, String message) {
    ObjectNode root = JSON.objectNode();
    root.put("type", "error");
    ObjectNode error = root.putObject("error");
    error.put("type", type);
    error.put("message", message);
    return root;
  }
}
