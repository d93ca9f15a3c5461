package io.backpressure.mock;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.backpressure.mock.limit.LimitSpec;
import io.backpressure.mock.limit.Verdict;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Base64;
import org.eclipse.jetty.http.HttpFields;

/**
 * AWS Bedrock's InvokeModel: {@code POST /model/{modelId}/invoke} and {@code
 * /invoke-with-response-stream}, the body in the model's own format. Served for Anthropic's Claude
 * models (a model id containing {@code anthropic.}, inference profiles included), whose format is
 * Anthropic's messages API without {@code model} and {@code stream} and with {@code
 * anthropic_version} required; other models are answered 400 {@code ValidationException}.
 *
 * <p>The whole answer is Anthropic's message, with Bedrock's {@code
 * x-amzn-bedrock-input-token-count} and {@code x-amzn-bedrock-output-token-count} headers. The
 * streamed answer is an AWS event stream of {@code chunk} events, each {@code {"bytes": base64}} of
 * one of Anthropic's stream events; the last ({@code message_stop}) carries {@code
 * amazon-bedrock-invocationMetrics} with {@code inputTokenCount} and {@code outputTokenCount}.
 * Errors, and the absence of rate-limit headers, are as in {@link BedrockDialect}.
 */
final class BedrockInvokeDialect implements Dialect {

  private static final String INVOKE = "/invoke";
  private static final String INVOKE_STREAM = "/invoke-with-response-stream";
  private static final String METRICS = "amazon-bedrock-invocationMetrics";
  private static final JsonNodeFactory JSON = JsonNodeFactory.instance;

  private final AnthropicDialect claude = new AnthropicDialect();
  private final BedrockDialect bedrock = new BedrockDialect();

  /** Whether {@code path} names an InvokeModel operation rather than a Converse one. */
  static boolean serves(String path) {
    return path.endsWith(INVOKE) || path.endsWith(INVOKE_STREAM);
  }

  @Override
  public ParsedCall parse(JsonNode root) throws BadRequestException {
    throw new IllegalStateException("an InvokeModel call is read with its path");
  }

  @Override
  public ParsedCall parse(String path, String query, JsonNode root) throws BadRequestException {
    boolean stream = path.endsWith(INVOKE_STREAM);
    String model = BedrockDialect.modelId(path, stream ? INVOKE_STREAM : INVOKE);
    if (!model.contains("anthropic.")) {
      throw new BadRequestException(
          "InvokeModel is served for Anthropic Claude models only; use Converse for " + model + ".",
          null,
          "ValidationException");
    }
    RequestFields.requiredText(root, "anthropic_version");
    ObjectNode withModel = ((ObjectNode) root).deepCopy();
    withModel.put("model", model);
    withModel.remove("stream");
    ParsedCall read = claude.parse(withModel);
    return new ParsedCall(model, read.promptTokens(), read.maxTokens(), stream, false);
  }

  @Override
  public ObjectNode completion(
      ParsedCall call, long id, long createdEpochSeconds, int completionTokens, boolean truncated) {
    return claude.completion(call, id, createdEpochSeconds, completionTokens, truncated);
  }

  @Override
  public void answerHeaders(HttpFields.Mutable headers, ParsedCall call, int completionTokens) {
    headers.put("x-amzn-bedrock-input-token-count", Long.toString(call.promptTokens()));
    headers.put("x-amzn-bedrock-output-token-count", Integer.toString(completionTokens));
    headers.put("x-amzn-bedrock-invocation-latency", "0");
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
    return chunks(claude.streamStart(call, id, createdEpochSeconds), call, 0);
  }

  @Override
  public String streamDelta(ParsedCall call, long id, long createdEpochSeconds, String text) {
    return chunks(claude.streamDelta(call, id, createdEpochSeconds, text), call, 0);
  }

  @Override
  public String streamEnd(
      ParsedCall call, long id, long createdEpochSeconds, int completionTokens, boolean truncated) {
    return chunks(
        claude.streamEnd(call, id, createdEpochSeconds, completionTokens, truncated),
        call,
        completionTokens);
  }

  /**
   * Anthropic's server-sent events, each as a {@code chunk} event of its JSON in base64; {@code
   * message_stop} gets the invocation metrics.
   */
  private static String chunks(String anthropicEvents, ParsedCall call, int completionTokens) {
    StringBuilder out = new StringBuilder();
    for (String line : anthropicEvents.split("\n")) {
      if (!line.startsWith("data: ")) {
        continue;
      }
      ObjectNode event;
      try {
        event = (ObjectNode) Exchange.JSON.readTree(line.substring(6));
      } catch (JsonProcessingException e) {
        throw new IllegalStateException("an Anthropic event that is not JSON: " + line, e);
      }
      if (event.path("type").asText().equals("message_stop")) {
        ObjectNode metrics = event.putObject(METRICS);
        metrics.put("inputTokenCount", call.promptTokens());
        metrics.put("outputTokenCount", completionTokens);
        metrics.put("invocationLatency", 0);
        metrics.put("firstByteLatency", 0);
      }
      String bytes =
          Base64.getEncoder().encodeToString(event.toString().getBytes(StandardCharsets.UTF_8));
      out.append(EventStreamFrames.event("chunk", JSON.objectNode().put("bytes", bytes)));
    }
    return out.toString();
  }

  @Override
  public ObjectNode rateLimited(
      String dimension, String message, LimitSpec spec, long retryAfterNanos) {
    return bedrock.rateLimited(dimension, message, spec, retryAfterNanos);
  }

  @Override
  public ObjectNode dayLimited(
      HttpFields.Mutable headers, ParsedCall call, DayWindows.Refusal refusal, Instant now) {
    return bedrock.dayLimited(headers, call, refusal, now);
  }

  @Override
  public ObjectNode clientError(String message, String param, String code) {
    return bedrock.clientError(message, param, code);
  }

  @Override
  public ObjectNode serverError() {
    return bedrock.serverError();
  }

  @Override
  public ObjectNode overloaded() {
    return bedrock.overloaded();
  }

  @Override
  public byte[] streamOverloaded() {
    return bedrock.streamOverloaded();
  }

  @Override
  public void errorHeaders(HttpFields.Mutable headers, int status, String code) {
    bedrock.errorHeaders(headers, status, code);
  }

  @Override
  public void rateLimitHeaders(
      HttpFields.Mutable headers,
      LimitSpec requests,
      LimitSpec tokens,
      Verdict verdict,
      long nowEpochMillis) {
    bedrock.rateLimitHeaders(headers, requests, tokens, verdict, nowEpochMillis);
  }
}
