package io.backpressure.mock;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.Headers;
import io.backpressure.mock.limit.LimitSpec;
import io.backpressure.mock.limit.UpstreamLimiter;
import io.backpressure.mock.limit.Verdict;
import java.time.Instant;
import java.time.temporal.ChronoUnit;

/**
 * Anthropic's messages format: {@code POST /v1/messages} with {@code model}, {@code max_tokens}
 * (required), {@code messages} and an optional {@code system} prompt; answers carry {@code usage}
 * with input and output tokens, errors are {@code {"type":"error","error":{type, message}}}, and
 * the limits go in {@code anthropic-ratelimit-*} headers whose resets are RFC 3339 instants, with
 * {@code retry-after} (seconds) on 429. The bound dimension is named in the 429's message.
 */
final class AnthropicDialect implements Dialect {

  private static final JsonNodeFactory JSON = JsonNodeFactory.instance;

  @Override
  public ParsedCall parse(JsonNode root) throws BadRequestException {
    String model = RequestFields.requiredText(root, "model");
    JsonNode messages = RequestFields.requiredArray(root, "messages");
    long chars =
        RequestFields.messagesChars(messages)
            + RequestFields.contentChars(root.get("system"), "system");
    RequestFields.refuseStreaming(root);
    Long maxTokens = RequestFields.tokenLimit(root, "max_tokens");
    if (maxTokens == null) {
      throw BadRequestException.missing("max_tokens");
    }
    return new ParsedCall(model, ParsedCall.estimateTokens(chars), maxTokens);
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
    root.put("stop_reason", truncated ? "max_tokens" : "end_turn");
    root.putNull("stop_sequence");
    ObjectNode usage = root.putObject("usage");
    usage.put("input_tokens", call.promptTokens());
    usage.put("output_tokens", completionTokens);
    return root;
  }

  @Override
  public ObjectNode rateLimited(String dimension, String message) {
    return error("rate_limit_error", message);
  }

  @Override
  public ObjectNode clientError(String message, String param, String code) {
    return error("invalid_request_error", message);
  }

  @Override
  public void rateLimitHeaders(
      Headers headers, UpstreamLimiter limiter, Verdict verdict, long nowEpochMillis) {
    dimensionHeaders(
        headers,
        "requests",
        limiter.requestsSpec(),
        verdict.remainingRequests(),
        verdict.resetRequestsNanos(),
        nowEpochMillis);
    dimensionHeaders(
        headers,
        "tokens",
        limiter.tokensSpec(),
        verdict.remainingTokens(),
        verdict.resetTokensNanos(),
        nowEpochMillis);
    if (!verdict.admitted() && !verdict.neverFits()) {
      headers.set(
          "retry-after", Long.toString(RateLimitFormat.ceilSeconds(verdict.retryAfterNanos())));
    }
  }

  private static void dimensionHeaders(
      Headers headers,
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
    headers.set(prefix + "-limit", RateLimitFormat.limit(spec.limitPerPeriod()));
    headers.set(prefix + "-remaining", RateLimitFormat.remaining(remaining));
    headers.set(prefix + "-reset", reset.toString());
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
