package io.backpressure.mock;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.backpressure.mock.limit.LimitSpec;
import io.backpressure.mock.limit.Verdict;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.eclipse.jetty.http.HttpFields;

/**
 * Azure OpenAI's chat completions: {@code POST
 * /openai/deployments/{deployment}/chat/completions?api-version=…}, the deployment in the path
 * standing for the model (a {@code model} in the body is ignored, as Azure does); bodies, answers
 * and streams as OpenAI's ({@link OpenAiDialect}). Azure's own are the errors, {@code
 * {"error":{"code":"429","message":"… have exceeded token rate limit of your current … pricing
 * tier. Please retry after 6 seconds. …"}}}, and the headers: {@code
 * x-ratelimit-remaining-requests} and {@code x-ratelimit-remaining-tokens} on every answer, and on
 * a 429 {@code retry-after} (seconds) and {@code retry-after-ms}.
 */
final class AzureDialect implements Dialect {

  /** The path prefix of the deployments. */
  static final String PREFIX = "/openai/deployments/";

  private static final String SUFFIX = "/chat/completions";
  private static final JsonNodeFactory JSON = JsonNodeFactory.instance;

  private final OpenAiDialect openAi = new OpenAiDialect();

  @Override
  public ParsedCall parse(JsonNode root) throws BadRequestException {
    throw new IllegalStateException("an Azure OpenAI call is read with its path");
  }

  @Override
  public ParsedCall parse(String path, String query, JsonNode root) throws BadRequestException {
    String deployment =
        path.startsWith(PREFIX) && path.endsWith(SUFFIX)
            ? path.substring(PREFIX.length(), path.length() - SUFFIX.length())
            : "";
    if (deployment.isEmpty() || deployment.contains("/")) {
      throw new BadRequestException("Resource not found", null, "404", 404);
    }
    if (query == null || !query.matches("(.*&)?api-version=[^&]+(&.*)?")) {
      throw new BadRequestException(
          "Missing API version parameter: api-version.",
          "api-version",
          "MissingApiVersionParameter");
    }
    ObjectNode named = ((ObjectNode) root).deepCopy();
    named.put("model", deployment);
    return openAi.parse(named);
  }

  @Override
  public ObjectNode completion(
      ParsedCall call, long id, long createdEpochSeconds, int completionTokens, boolean truncated) {
    return openAi.completion(call, id, createdEpochSeconds, completionTokens, truncated);
  }

  @Override
  public String streamStart(ParsedCall call, long id, long createdEpochSeconds) {
    return openAi.streamStart(call, id, createdEpochSeconds);
  }

  @Override
  public String streamDelta(ParsedCall call, long id, long createdEpochSeconds, String text) {
    return openAi.streamDelta(call, id, createdEpochSeconds, text);
  }

  @Override
  public String streamEnd(
      ParsedCall call, long id, long createdEpochSeconds, int completionTokens, boolean truncated) {
    return openAi.streamEnd(call, id, createdEpochSeconds, completionTokens, truncated);
  }

  @Override
  public ObjectNode rateLimited(
      String dimension, String message, LimitSpec spec, long retryAfterNanos) {
    String limit = dimension.equals("requests") ? "call rate limit" : "token rate limit";
    String text =
        "Requests to the ChatCompletions_Create Operation under Azure OpenAI API have exceeded "
            + limit
            + " of your current OpenAI S0 pricing tier."
            + (retryAfterNanos < 0
                ? " The request is larger than the limit."
                : " Please retry after "
                    + RateLimitFormat.ceilSeconds(retryAfterNanos)
                    + " seconds.")
            + " Please go here: https://aka.ms/oai/quotaincrease if you would like to further"
            + " increase the default rate limit.";
    return error("429", text);
  }

  /**
   * A spent daily quota. Azure OpenAI itself caps tokens and requests per minute only; a daily
   * quota in front of a deployment is Azure API Management's: {@code azure-openai-token-limit} with
   * {@code token-quota} and {@code token-quota-period="Daily"} for tokens, the {@code quota-by-key}
   * policy for calls. Both answer 403 with {@code retry-after} (seconds until the period renews)
   * and API Management's own body: {@code {"statusCode": 403, "message": "Token quota is exceeded.
   * Try again in 2 hours, 5 minutes and 3 seconds."}}, or for calls "Out of call volume quota.
   * Quota will be replenished in 02:05:03.".
   */
  @Override
  public ObjectNode dayLimited(
      HttpFields.Mutable headers, ParsedCall call, DayWindows.Refusal refusal, Instant now) {
    long seconds = RateLimitFormat.ceilSeconds(refusal.nanosUntilReset(now));
    headers.put("retry-after", Long.toString(seconds));
    ObjectNode root = JSON.objectNode();
    root.put("statusCode", 403);
    root.put(
        "message",
        refusal.requests()
            ? "Out of call volume quota. Quota will be replenished in " + clock(seconds) + "."
            : "Token quota is exceeded. Try again in " + spelled(seconds) + ".");
    return root;
  }

  @Override
  public int dayLimitedStatus() {
    return 403;
  }

  /** API Management's renewal clock: {@code hh:mm:ss}, with {@code d.} before it past a day. */
  static String clock(long seconds) {
    long days = seconds / 86_400;
    String time =
        String.format(
            Locale.ROOT, "%02d:%02d:%02d", seconds / 3600 % 24, seconds / 60 % 60, seconds % 60);
    return days > 0 ? days + "." + time : time;
  }

  /** API Management's spelled wait: "2 hours, 5 minutes and 3 seconds", zero parts left out. */
  static String spelled(long seconds) {
    List<String> parts = new ArrayList<>();
    long[] values = {seconds / 86_400, seconds / 3600 % 24, seconds / 60 % 60, seconds % 60};
    String[] names = {"day", "hour", "minute", "second"};
    for (int i = 0; i < values.length; i++) {
      if (values[i] > 0) {
        parts.add(values[i] + " " + names[i] + (values[i] == 1 ? "" : "s"));
      }
    }
    if (parts.isEmpty()) {
      return "0 seconds";
    }
    String last = parts.remove(parts.size() - 1);
    return parts.isEmpty() ? last : String.join(", ", parts) + " and " + last;
  }

  @Override
  public ObjectNode clientError(String message, String param, String code) {
    return error(code == null ? "BadRequest" : code, message);
  }

  @Override
  public ObjectNode serverError() {
    return error("InternalServerError", "The server had an error while processing your request.");
  }

  @Override
  public ObjectNode overloaded() {
    return error(
        "ServiceUnavailable",
        "The service is temporarily unable to process your request. Please try again later.");
  }

  /**
   * Azure's 503 error object as the data of one more event, with no {@code [DONE]} after it, as
   * openai-java reads an {@code error} in place of a chunk.
   */
  @Override
  public byte[] streamOverloaded() {
    return streamBytes(Dialect.dataEvent(overloaded().toString()));
  }

  @Override
  public void rateLimitHeaders(
      HttpFields.Mutable headers,
      LimitSpec requests,
      LimitSpec tokens,
      Verdict verdict,
      long nowEpochMillis) {
    if (requests != null) {
      headers.put(
          "x-ratelimit-remaining-requests", RateLimitFormat.remaining(verdict.remainingRequests()));
    }
    if (tokens != null) {
      headers.put(
          "x-ratelimit-remaining-tokens", RateLimitFormat.remaining(verdict.remainingTokens()));
    }
    if (!verdict.admitted() && !verdict.neverFits()) {
      long nanos = verdict.retryAfterNanos();
      headers.put("retry-after", Long.toString(RateLimitFormat.ceilSeconds(nanos)));
      headers.put("retry-after-ms", Long.toString(RateLimitFormat.ceilMillis(nanos)));
    }
  }

  private static ObjectNode error(String code, String message) {
    ObjectNode root = JSON.objectNode();
    ObjectNode error = root.putObject("error");
    error.put("code", code);
    error.put("message", message);
    return root;
  }
}
