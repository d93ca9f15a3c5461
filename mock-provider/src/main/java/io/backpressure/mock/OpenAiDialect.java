package io.backpressure.mock;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.Headers;
import io.backpressure.mock.limit.LimitSpec;
import io.backpressure.mock.limit.UpstreamLimiter;
import io.backpressure.mock.limit.Verdict;

/**
 * OpenAI's chat completions format: {@code POST /v1/chat/completions} with {@code model}, {@code
 * messages} and optionally {@code max_completion_tokens} or its older name {@code max_tokens} (the
 * former wins when both are set); answers carry {@code usage}, errors are {@code {"error":
 * {message, type, param, code}}}, and the limits go in {@code x-ratelimit-*} headers with {@code
 * retry-after} (seconds) and {@code retry-after-ms} on 429.
 */
final class OpenAiDialect implements Dialect {

  private static final JsonNodeFactory JSON = JsonNodeFactory.instance;

  @Override
  public ParsedCall parse(JsonNode root) throws BadRequestException {
    String model = RequestFields.requiredText(root, "model");
    JsonNode messages = RequestFields.requiredArray(root, "messages");
    long chars = RequestFields.messagesChars(messages);
    RequestFields.refuseStreaming(root);
    Long maxTokens = RequestFields.tokenLimit(root, "max_completion_tokens");
    Long legacyMaxTokens = RequestFields.tokenLimit(root, "max_tokens");
    return new ParsedCall(
        model, ParsedCall.estimateTokens(chars), maxTokens != null ? maxTokens : legacyMaxTokens);
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
    ObjectNode usage = root.putObject("usage");
    usage.put("prompt_tokens", call.promptTokens());
    usage.put("completion_tokens", completionTokens);
    usage.put("total_tokens", call.promptTokens() + completionTokens);
    root.putNull("system_fingerprint");
    return root;
  }

  @Override
  public ObjectNode rateLimited(String dimension, String message) {
    return error(message, dimension, null, "rate_limit_exceeded");
  }

  @Override
  public ObjectNode clientError(String message, String param, String code) {
    return error(message, "invalid_request_error", param, code);
  }

  @Override
  public void rateLimitHeaders(
      Headers headers, UpstreamLimiter limiter, Verdict verdict, long nowEpochMillis) {
    dimensionHeaders(
        headers,
        "requests",
        limiter.requestsSpec(),
        verdict.remainingRequests(),
        verdict.resetRequestsNanos());
    dimensionHeaders(
        headers,
        "tokens",
        limiter.tokensSpec(),
        verdict.remainingTokens(),
        verdict.resetTokensNanos());
    if (!verdict.admitted() && !verdict.neverFits()) {
      headers.set(
          "retry-after", Long.toString(RateLimitFormat.ceilSeconds(verdict.retryAfterNanos())));
      headers.set(
          "retry-after-ms", Long.toString(RateLimitFormat.ceilMillis(verdict.retryAfterNanos())));
    }
  }

  private static void dimensionHeaders(
      Headers headers, String dimension, LimitSpec spec, double remaining, long resetNanos) {
    if (spec == null) {
      return;
    }
    headers.set("x-ratelimit-limit-" + dimension, RateLimitFormat.limit(spec.limitPerPeriod()));
    headers.set("x-ratelimit-remaining-" + dimension, RateLimitFormat.remaining(remaining));
    headers.set("x-ratelimit-reset-" + dimension, RateLimitFormat.duration(resetNanos));
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
