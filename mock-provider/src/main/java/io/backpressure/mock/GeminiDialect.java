package io.backpressure.mock;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.backpressure.mock.limit.LimitSpec;
import io.backpressure.mock.limit.Verdict;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.time.Duration;
import java.time.Instant;
import org.eclipse.jetty.http.HttpFields;

/**
 * The Gemini API's {@code generateContent}: {@code POST /v1beta/models/{model}:generateContent} (or
 * under {@code /v1/}, which google-genai uses by default), and {@code
 * :streamGenerateContent?alt=sse} for a stream; the model is in the path, the body has {@code
 * contents} (each with {@code parts} of {@code text}), an optional {@code systemInstruction} and
 * {@code generationConfig.maxOutputTokens}. Answers carry {@code candidates} and {@code
 * usageMetadata} ({@code promptTokenCount}, {@code candidatesTokenCount}, {@code totalTokenCount});
 * a stream sends one {@code GenerateContentResponse} per event, the last with the finish reason and
 * the whole usage.
 *
 * <p>As the Gemini API does, it sends no rate-limit headers and no {@code retry-after}: a 429 is a
 * {@code google.rpc.Status} of {@code RESOURCE_EXHAUSTED} whose details say which quota was hit
 * ({@code QuotaFailure}, per minute or, for a window of a day or more, per day) and when to retry
 * ({@code RetryInfo.retryDelay}). Errors are {@code {"error":{code, message, status}}}.
 */
final class GeminiDialect implements Dialect {

  /** The path prefixes of the model methods: the beta and the stable API version. */
  static final java.util.List<String> PREFIXES =
      java.util.List.of("/v1beta/models/", "/v1/models/");

  private static final JsonNodeFactory JSON = JsonNodeFactory.instance;
  private static final String TYPES = "type.googleapis.com/google.rpc.";

  @Override
  public ParsedCall parse(JsonNode root) throws BadRequestException {
    throw new IllegalStateException("a Gemini call is read with its path");
  }

  @Override
  public ParsedCall parse(String path, String query, JsonNode root) throws BadRequestException {
    String method = "";
    for (String prefix : PREFIXES) {
      if (path.startsWith(prefix)) {
        method = path.substring(prefix.length());
      }
    }
    int colon = method.lastIndexOf(':');
    String model = colon > 0 ? method.substring(0, colon) : "";
    String verb = colon > 0 ? method.substring(colon + 1) : "";
    boolean stream = verb.equals("streamGenerateContent");
    if (model.isEmpty() || !(stream || verb.equals("generateContent"))) {
      throw new BadRequestException(
          "The path must be /v1beta/models/{model}:generateContent or :streamGenerateContent"
              + " (or under /v1/).",
          null,
          "NOT_FOUND",
          404);
    }
    if (stream && (query == null || !query.contains("alt=sse"))) {
      throw new BadRequestException(
          "This mock streams only as server-sent events: add ?alt=sse.", "alt", "INVALID_ARGUMENT");
    }
    JsonNode contents = RequestFields.requiredArray(root, "contents");
    long chars = 0;
    for (int i = 0; i < contents.size(); i++) {
      chars += partsChars(contents.get(i), "contents[" + i + "]");
    }
    JsonNode system = root.get("systemInstruction");
    if (system != null && !system.isNull()) {
      chars += partsChars(system, "systemInstruction");
    }
    JsonNode config = root.path("generationConfig");
    Long maxTokens = config.isObject() ? RequestFields.tokenLimit(config, "maxOutputTokens") : null;
    return new ParsedCall(model, ParsedCall.estimateTokens(chars), maxTokens, stream, true);
  }

  private static long partsChars(JsonNode content, String param) throws BadRequestException {
    if (!content.isObject()) {
      throw BadRequestException.invalidType(param, "an object");
    }
    JsonNode parts = content.get("parts");
    if (parts == null || !parts.isArray()) {
      throw BadRequestException.missing(param + ".parts");
    }
    return RequestFields.contentChars(parts, param + ".parts");
  }

  @Override
  public ObjectNode completion(
      ParsedCall call, long id, long createdEpochSeconds, int completionTokens, boolean truncated) {
    ObjectNode root = chunk(call, id, Dialect.completionText(completionTokens));
    ((ObjectNode) root.get("candidates").get(0)).put("finishReason", finish(truncated));
    usage(root, call.promptTokens(), completionTokens);
    return root;
  }

  @Override
  public String streamStart(ParsedCall call, long id, long createdEpochSeconds) {
    return "";
  }

  @Override
  public String streamDelta(ParsedCall call, long id, long createdEpochSeconds, String text) {
    ObjectNode chunk = chunk(call, id, text);
    chunk.putObject("usageMetadata").put("promptTokenCount", call.promptTokens());
    return Dialect.dataEvent(chunk.toString());
  }

  @Override
  public String streamEnd(
      ParsedCall call, long id, long createdEpochSeconds, int completionTokens, boolean truncated) {
    ObjectNode last = chunk(call, id, "");
    ((ObjectNode) last.get("candidates").get(0)).put("finishReason", finish(truncated));
    usage(last, call.promptTokens(), completionTokens);
    return Dialect.dataEvent(last.toString());
  }

  private static ObjectNode chunk(ParsedCall call, long id, String text) {
    ObjectNode root = JSON.objectNode();
    ObjectNode candidate = root.putArray("candidates").addObject();
    ObjectNode content = candidate.putObject("content");
    content.putArray("parts").addObject().put("text", text);
    content.put("role", "model");
    candidate.put("index", 0);
    root.put("modelVersion", call.model());
    root.put("responseId", "mock-" + id);
    return root;
  }

  private static String finish(boolean truncated) {
    return truncated ? "MAX_TOKENS" : "STOP";
  }

  private static void usage(ObjectNode root, long prompt, long candidates) {
    ObjectNode usage = root.putObject("usageMetadata");
    usage.put("promptTokenCount", prompt);
    usage.put("candidatesTokenCount", candidates);
    usage.put("totalTokenCount", prompt + candidates);
  }

  @Override
  public ObjectNode rateLimited(
      String dimension, String message, LimitSpec spec, long retryAfterNanos) {
    boolean perDay = spec != null && spec.period().compareTo(Duration.ofDays(1)) >= 0;
    boolean requests = dimension.equals("requests");
    String quotaId =
        (requests ? "GenerateRequests" : "GenerateContentInputTokens")
            + (perDay ? "PerDay" : "PerMinute")
            + "PerProjectPerModel";
    String metric =
        "generativelanguage.googleapis.com/generate_content_"
            + (requests ? "requests" : "input_token_count");
    ObjectNode root = status(429, quotaMessage(message), "RESOURCE_EXHAUSTED");
    ArrayNode details = ((ObjectNode) root.get("error")).putArray("details");
    ObjectNode failure = details.addObject().put("@type", TYPES + "QuotaFailure");
    ObjectNode violation = failure.putArray("violations").addObject();
    violation.put("quotaMetric", metric);
    violation.put("quotaId", quotaId);
    violation.putObject("quotaDimensions").put("location", "global");
    if (spec != null) {
      violation.put("quotaValue", RateLimitFormat.limit(spec.limitPerPeriod()));
    }
    help(details);
    if (retryAfterNanos >= 0) {
      details
          .addObject()
          .put("@type", TYPES + "RetryInfo")
          .put("retryDelay", retryDelay(retryAfterNanos));
    }
    return root;
  }

  /**
   * The Gemini API's answer to a spent per-day quota: a 429 {@code RESOURCE_EXHAUSTED} whose
   * message names the quota's metric, limit and model, and whose {@code QuotaFailure} names the
   * per-day quota ({@code GenerateRequestsPerDayPerProjectPerModel}, or for tokens {@code
   * GenerateContentInputTokensPerModelPerDay}) and whose {@code RetryInfo} waits until the next day
   * starts.
   */
  @Override
  public ObjectNode dayLimited(
      HttpFields.Mutable headers, ParsedCall call, DayWindows.Refusal refusal, Instant now) {
    boolean requests = refusal.requests();
    String metric =
        "generativelanguage.googleapis.com/generate_content_"
            + (requests ? "requests" : "input_token_count");
    long wait = refusal.nanosUntilReset(now);
    ObjectNode root =
        status(
            429,
            "You exceeded your current quota, please check your plan and billing details. For more"
                + " information on this error, head to:"
                + " https://ai.google.dev/gemini-api/docs/rate-limits.\n* Quota exceeded for"
                + " metric: "
                + metric
                + ", limit: "
                + refusal.limit()
                + ", model: "
                + call.model()
                + "\nPlease retry in "
                + retryDelay(wait)
                + ".",
            "RESOURCE_EXHAUSTED");
    ArrayNode details = ((ObjectNode) root.get("error")).putArray("details");
    help(details);
    ObjectNode violation =
        details.addObject().put("@type", TYPES + "QuotaFailure").putArray("violations").addObject();
    violation.put("quotaMetric", metric);
    violation.put(
        "quotaId",
        requests
            ? "GenerateRequestsPerDayPerProjectPerModel"
            : "GenerateContentInputTokensPerModelPerDay");
    violation.putObject("quotaDimensions").put("location", "global").put("model", call.model());
    violation.put("quotaValue", Long.toString(refusal.limit()));
    details.addObject().put("@type", TYPES + "RetryInfo").put("retryDelay", retryDelay(wait));
    return root;
  }

  private static void help(ArrayNode details) {
    details
        .addObject()
        .put("@type", TYPES + "Help")
        .putArray("links")
        .addObject()
        .put("description", "Learn more about Gemini API quotas")
        .put("url", "https://ai.google.dev/gemini-api/docs/rate-limits");
  }

  private static String quotaMessage(String message) {
    return "You exceeded your current quota, please check your plan and billing details. "
        + message;
  }

  /** A protobuf Duration in JSON: seconds with up to 3 decimals, rounded up, and an {@code s}. */
  static String retryDelay(long nanos) {
    BigDecimal seconds =
        BigDecimal.valueOf(Math.max(0, nanos)).movePointLeft(9).setScale(3, RoundingMode.CEILING);
    return seconds.stripTrailingZeros().toPlainString() + "s";
  }

  @Override
  public ObjectNode clientError(String message, String param, String code) {
    boolean notFound = "NOT_FOUND".equals(code) || "unknown_url".equals(code);
    return status(notFound ? 404 : 400, message, notFound ? "NOT_FOUND" : "INVALID_ARGUMENT");
  }

  @Override
  public ObjectNode serverError() {
    return status(500, "An internal error has occurred. Please retry.", "INTERNAL");
  }

  @Override
  public ObjectNode overloaded() {
    return status(503, "The model is overloaded. Please try again later.", "UNAVAILABLE");
  }

  /**
   * The 503 {@code UNAVAILABLE} status as the data of one more event: the Gemini API ends a stream
   * under way with a {@code google.rpc.Status} in place of a {@code GenerateContentResponse}, which
   * google-genai throws as the {@code ApiException} of its {@code code}.
   */
  @Override
  public byte[] streamOverloaded() {
    return streamBytes(Dialect.dataEvent(overloaded().toString()));
  }

  private static ObjectNode status(int code, String message, String status) {
    ObjectNode root = JSON.objectNode();
    ObjectNode error = root.putObject("error");
    error.put("code", code);
    error.put("message", message);
    error.put("status", status);
    return root;
  }

  @Override
  public void rateLimitHeaders(
      HttpFields.Mutable headers,
      LimitSpec requests,
      LimitSpec tokens,
      Verdict verdict,
      long nowEpochMillis) {
    // The Gemini API sends no rate-limit headers and no retry-after: what to do is in the body.
  }
}
