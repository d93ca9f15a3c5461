package io.backpressure.mock;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.backpressure.mock.limit.LimitSpec;
import io.backpressure.mock.limit.Verdict;
import java.time.Instant;
import org.eclipse.jetty.http.HttpFields;

/**
 * AWS Bedrock's Converse: {@code POST /model/{modelId}/converse} (and {@code /converse-stream}),
 * the model (or inference profile) in the path, the body with {@code messages} (each with {@code
 * content} blocks of {@code text}), an optional {@code system} list and {@code
 * inferenceConfig.maxTokens}; the answer has {@code output.message}, {@code stopReason} and {@code
 * usage} ({@code inputTokens}, {@code outputTokens}, {@code totalTokens}). Errors are AWS's
 * REST-JSON shape: the type in the {@code x-amzn-ErrorType} header, {@code {"message": …}} in the
 * body, on every error; a throttled call is a 429 {@code ThrottlingException} with no rate-limit
 * headers and no {@code retry-after}, as Bedrock sends it, a call larger than a cap outright a 400
 * {@code ValidationException}, an overloaded one a 503 {@code ServiceUnavailableException}.
 *
 * <p>{@code converse-stream} answers in AWS's binary event stream ({@link EventStreamFrames}):
 * {@code messageStart}, one {@code contentBlockDelta} per piece of text, {@code contentBlockStop},
 * {@code messageStop} with the stop reason, and {@code metadata} with the usage.
 */
final class BedrockDialect implements Dialect {

  /** The path prefix of the model operations. */
  static final String PREFIX = "/model/";

  private static final String CONVERSE = "/converse";
  private static final String CONVERSE_STREAM = "/converse-stream";
  private static final String ERROR_TYPE = "x-amzn-ErrorType";
  private static final String CORAL = ":http://internal.amazon.com/coral/com.amazon.bedrock/";
  private static final JsonNodeFactory JSON = JsonNodeFactory.instance;

  @Override
  public ParsedCall parse(JsonNode root) throws BadRequestException {
    throw new IllegalStateException("a Bedrock call is read with its path");
  }

  @Override
  public ParsedCall parse(String path, String query, JsonNode root) throws BadRequestException {
    boolean stream = path.endsWith(CONVERSE_STREAM);
    String operation = stream ? CONVERSE_STREAM : CONVERSE;
    String model = modelId(path, operation);
    JsonNode messages = RequestFields.requiredArray(root, "messages");
    long chars = 0;
    for (int i = 0; i < messages.size(); i++) {
      chars += blocksChars(messages.get(i).get("content"), "messages[" + i + "].content");
    }
    chars += blocksChars(root.get("system"), "system");
    JsonNode config = root.path("inferenceConfig");
    Long maxTokens = config.isObject() ? RequestFields.tokenLimit(config, "maxTokens") : null;
    return new ParsedCall(model, ParsedCall.estimateTokens(chars), maxTokens, stream, false);
  }

  /**
   * The model id between {@link #PREFIX} and {@code operation} in {@code path}; a 404 when there is
   * none.
   */
  static String modelId(String path, String operation) throws BadRequestException {
    String model =
        path.startsWith(PREFIX) && path.endsWith(operation)
            ? path.substring(PREFIX.length(), path.length() - operation.length())
            : "";
    if (model.isEmpty() || model.contains("/")) {
      throw new BadRequestException(
          "Only /model/{modelId}/converse, /converse-stream, /invoke and"
              + " /invoke-with-response-stream are served.",
          null,
          "UnknownOperationException",
          404);
    }
    return model;
  }

  private static long blocksChars(JsonNode blocks, String param) throws BadRequestException {
    if (blocks == null || blocks.isNull()) {
      return 0;
    }
    return RequestFields.contentChars(blocks, param);
  }

  @Override
  public ObjectNode completion(
      ParsedCall call, long id, long createdEpochSeconds, int completionTokens, boolean truncated) {
    ObjectNode root = JSON.objectNode();
    ObjectNode message = root.putObject("output").putObject("message");
    message.put("role", "assistant");
    message.putArray("content").addObject().put("text", Dialect.completionText(completionTokens));
    root.put("stopReason", truncated ? "max_tokens" : "end_turn");
    ObjectNode usage = root.putObject("usage");
    usage.put("inputTokens", call.promptTokens());
    usage.put("outputTokens", completionTokens);
    usage.put("totalTokens", call.promptTokens() + completionTokens);
    root.putObject("metrics").put("latencyMs", 0);
    return root;
  }

  @Override
  public String streamContentType() {
    return EventStreamFrames.CONTENT_TYPE;
  }

  @Override
  public byte[] streamBytes(String events) {
    return EventStreamFrames.frame(events);
  }

  @Override
  public String streamStart(ParsedCall call, long id, long createdEpochSeconds) {
    return EventStreamFrames.event("messageStart", JSON.objectNode().put("role", "assistant"));
  }

  @Override
  public String streamDelta(ParsedCall call, long id, long createdEpochSeconds, String text) {
    ObjectNode delta = JSON.objectNode().put("contentBlockIndex", 0);
    delta.putObject("delta").put("text", text);
    return EventStreamFrames.event("contentBlockDelta", delta);
  }

  @Override
  public String streamEnd(
      ParsedCall call, long id, long createdEpochSeconds, int completionTokens, boolean truncated) {
    ObjectNode metadata = JSON.objectNode();
    ObjectNode usage = metadata.putObject("usage");
    usage.put("inputTokens", call.promptTokens());
    usage.put("outputTokens", completionTokens);
    usage.put("totalTokens", call.promptTokens() + completionTokens);
    metadata.putObject("metrics").put("latencyMs", 0);
    return EventStreamFrames.event(
            "contentBlockStop", JSON.objectNode().put("contentBlockIndex", 0))
        + EventStreamFrames.event(
            "messageStop",
            JSON.objectNode().put("stopReason", truncated ? "max_tokens" : "end_turn"))
        + EventStreamFrames.event("metadata", metadata);
  }

  @Override
  public ObjectNode rateLimited(
      String dimension, String message, LimitSpec spec, long retryAfterNanos) {
    if (retryAfterNanos < 0) {
      return message("Input is too long for requested model.");
    }
    return message(
        dimension.equals("requests")
            ? "Too many requests, please wait before trying again."
            : "Too many tokens, please wait before trying again.");
  }

  /**
   * Bedrock's answer to a spent daily quota (its "model invocation max tokens per day"): a 429
   * {@code ThrottlingException} saying "Too many tokens per day" (or requests), with no rate-limit
   * headers and no {@code retry-after}, like its per-minute throttling.
   */
  @Override
  public ObjectNode dayLimited(
      HttpFields.Mutable headers, ParsedCall call, DayWindows.Refusal refusal, Instant now) {
    headers.put(ERROR_TYPE, "ThrottlingException" + CORAL);
    return message(
        "Too many "
            + (refusal.requests() ? "requests" : "tokens")
            + " per day, please wait before trying again.");
  }

  /** Bedrock answers a call too large for the model's quota 400 {@code ValidationException}. */
  @Override
  public int neverFitsStatus() {
    return 400;
  }

  @Override
  public ObjectNode clientError(String message, String param, String code) {
    return message(message);
  }

  @Override
  public ObjectNode serverError() {
    return message("The server encountered an internal error while processing the request.");
  }

  @Override
  public ObjectNode overloaded() {
    return message("Bedrock is unable to process your request.");
  }

  @Override
  public byte[] streamOverloaded() {
    return EventStreamFrames.exception("serviceUnavailableException", overloaded());
  }

  /**
   * Bedrock's error type in {@code x-amzn-ErrorType}, from which the AWS SDK picks the exception
   * class: the body's code when it is an AWS error type, else the type Bedrock answers that status
   * with ({@code ValidationException} for a bad request).
   */
  @Override
  public void errorHeaders(HttpFields.Mutable headers, int status, String code) {
    String type;
    if (code != null && code.endsWith("Exception")) {
      type = code;
    } else {
      type =
          switch (status) {
            case 403 -> "AccessDeniedException";
            case 404 -> "ResourceNotFoundException";
            case 405 -> "UnknownOperationException";
            case 429 -> "ThrottlingException";
            case 503 -> "ServiceUnavailableException";
            default -> status >= 500 ? "InternalServerException" : "ValidationException";
          };
    }
    headers.put(ERROR_TYPE, type + CORAL);
  }

  @Override
  public void rateLimitHeaders(
      HttpFields.Mutable headers,
      LimitSpec requests,
      LimitSpec tokens,
      Verdict verdict,
      long nowEpochMillis) {
    // Bedrock sends no rate-limit headers; a refusal's type goes in x-amzn-ErrorType.
    if (!verdict.admitted()) {
      headers.put(
          ERROR_TYPE,
          (verdict.neverFits() ? "ValidationException" : "ThrottlingException") + CORAL);
    }
  }

  /** AWS's REST-JSON error body. */
  static ObjectNode message(String message) {
    return JSON.objectNode().put("message", message);
  }
}
