package io.backpressure.core.feedback;

import io.backpressure.core.Dimension;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.time.format.DateTimeParseException;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads a {@link ProviderSignal} from a provider's answer. It understands
 *
 * <ul>
 *   <li>OpenAI's (and Azure OpenAI's) {@code x-ratelimit-limit-requests}, {@code -remaining-},
 *       {@code -reset-} (and the same for {@code tokens}); resets are Go durations such as {@code
 *       1s}, {@code 6m0s}, {@code 12ms};
 *   <li>Anthropic's {@code anthropic-ratelimit-{requests,tokens,input-tokens,output-tokens}-{limit,
 *       remaining,reset}}; resets are RFC 3339 instants;
 *   <li>{@code retry-after} (seconds or an HTTP date) and {@code retry-after-ms} (which wins when
 *       both are present, being the more precise);
 *   <li>the error bodies of OpenAI, Azure OpenAI, Anthropic, the Gemini API and Bedrock, and
 *       Bedrock's {@code x-amzn-ErrorType} header, for what the answer means and which dimension it
 *       found exhausted (the table below). When a 429 names no dimension, its exhausted dimensions
 *       are those whose {@code remaining} is zero.
 * </ul>
 *
 * <h2>The signal table</h2>
 *
 * What each provider's answer means ({@link ProviderSignal.Meaning}); the gate's reaction to each
 * meaning is in {@code EffectiveCaps}.
 *
 * <table>
 *   <caption>Provider answers and their meaning</caption>
 *   <tr><th>Provider</th><th>Answer</th><th>Meaning</th><th>Dimension, wait</th></tr>
 *   <tr><td>OpenAI</td><td>429 {@code error.type} {@code requests} / {@code tokens}</td>
 *       <td>slow down</td><td>the type; {@code x-ratelimit-reset-*}, {@code retry-after(-ms)}</td></tr>
 *   <tr><td>OpenAI</td><td>429 {@code error.type} {@code requests} / {@code tokens} whose
 *       message names a per-day limit ("on requests per day (RPD)", "on tokens per day
 *       (TPD)")</td><td>stop until a reset</td><td>the type; {@code retry-after(-ms)}</td></tr>
 *   <tr><td>OpenAI</td><td>429 {@code error.code} (or type) {@code insufficient_quota}, or one
 *       of the billing codes {@code organization_spend_limit_exceeded}, {@code
 *       project_spend_limit_exceeded}, {@code organization_usage_limit_exceeded}, {@code
 *       credit_balance_exhausted}</td><td>stop until a reset</td><td>all; none given
 *       (billing)</td></tr>
 *   <tr><td>Azure OpenAI</td><td>429 {@code error.code "429"}, message "exceeded token rate
 *       limit" / "exceeded call rate limit"</td><td>slow down</td>
 *       <td>tokens / requests; {@code retry-after-ms}, {@code retry-after}</td></tr>
 *   <tr><td>Azure OpenAI behind API Management</td><td>403 {@code {"statusCode": 403, "message":
 *       "Token quota is exceeded. Try again in …"}} ({@code azure-openai-token-limit}'s {@code
 *       token-quota}, per day or another period) or "Out of call volume quota. Quota will be
 *       replenished in …" (its {@code quota} policies)</td><td>stop until a reset</td>
 *       <td>tokens / requests; {@code retry-after}, else the wait the message names</td></tr>
 *   <tr><td>OpenAI, Azure OpenAI</td><td>5xx whose message says "overloaded" (OpenAI's 503
 *       {@code server_error} "The engine is currently overloaded"), {@code error.code
 *       "ServiceUnavailable"} (Azure's 503); also as the {@code error} object in place of a chunk
 *       that ends a stream begun with a 200</td><td>overloaded</td>
 *       <td>all; {@code retry-after(-ms)} if sent</td></tr>
 *   <tr><td>Anthropic</td><td>429 {@code rate_limit_error} with {@code retry-after}</td>
 *       <td>slow down</td><td>the zero {@code remaining}; {@code retry-after}</td></tr>
 *   <tr><td>Anthropic</td><td>429 {@code rate_limit_error} without {@code retry-after} (a spend
 *       limit)</td><td>stop until a reset</td><td>all; none given</td></tr>
 *   <tr><td>Anthropic</td><td>400 {@code invalid_request_error} "You have reached your specified
 *       (workspace) API usage limits. You will regain access on 2026-04-01 at 00:00 UTC."</td>
 *       <td>stop until a reset</td><td>all; until the instant the message names</td></tr>
 *   <tr><td>Anthropic</td><td>{@code event: error} {@code rate_limit_error} ending a stream
 *       begun with a 200 (no headers of its own)</td><td>slow down</td><td>all; none given</td></tr>
 *   <tr><td>Anthropic</td><td>529 {@code overloaded_error}</td><td>overloaded</td>
 *       <td>all; {@code retry-after} if sent</td></tr>
 *   <tr><td>Gemini API</td><td>429 {@code RESOURCE_EXHAUSTED}, {@code QuotaFailure} with a
 *       per-minute quota id</td><td>slow down</td><td>requests or input tokens (from the quota
 *       id); {@code RetryInfo.retryDelay}</td></tr>
 *   <tr><td>Gemini API</td><td>429 {@code RESOURCE_EXHAUSTED}, a per-day quota id</td>
 *       <td>stop until a reset</td><td>the quota's; next midnight Pacific time</td></tr>
 *   <tr><td>Gemini API</td><td>503 {@code UNAVAILABLE}</td><td>overloaded</td>
 *       <td>all; {@code RetryInfo} if sent</td></tr>
 *   <tr><td>Bedrock</td><td>429 {@code ThrottlingException}, no rate-limit headers</td>
 *       <td>slow down</td><td>"Too many tokens" / "Too many requests"; none given</td></tr>
 *   <tr><td>Bedrock</td><td>429 {@code ThrottlingException} "Too many tokens per day" (the
 *       daily token quota; also "requests per day")</td><td>stop until a reset</td>
 *       <td>tokens / requests; none given</td></tr>
 *   <tr><td>Bedrock</td><td>503 {@code ServiceUnavailableException}, 429 {@code
 *       ModelNotReadyException}</td><td>overloaded</td><td>all; none given</td></tr>
 *   <tr><td>Bedrock</td><td>400 {@code ServiceQuotaExceededException}</td>
 *       <td>stop until a reset</td><td>all; none given</td></tr>
 *   <tr><td>any</td><td>another 429</td><td>slow down</td><td>as above</td></tr>
 *   <tr><td>any</td><td>another 5xx, no answer</td><td>provider error</td><td>-</td></tr>
 *   <tr><td>any</td><td>400, 401, 403, 404, … ({@code ValidationException}, {@code
 *       INVALID_ARGUMENT}, {@code not_found_error}, …)</td><td>not a capacity signal</td>
 *       <td>-</td></tr>
 * </table>
 *
 * <p>Header names are matched without regard to case. A value that cannot be read is ignored,
 * counted in {@link ProviderSignal#ignored()} and in {@link #ignoredTotal()}, and logged as a
 * warning at most once a minute; parsing never throws for anything the provider sent. Only the
 * headers above are read, and of the body only the error's type, code, status, the first 200
 * characters of its message and Gemini's details, none of which is logged, so no other header (an
 * API key echoed back, a cookie) is ever logged. Thread-safe.
 */
public final class ProviderSignals {
  private static final Logger LOG = LoggerFactory.getLogger(ProviderSignals.class);

  /** The body is only read for its error; a longer one is cut here. */
  private static final int MAX_BODY = 64 * 1024;

  /** Of an error's message only this much is read (for Azure's and Bedrock's dimension). */
  private static final int MAX_MESSAGE = 200;

  /** Where the Gemini API's per-day quotas reset at midnight. */
  private static final ZoneId PACIFIC = ZoneId.of("America/Los_Angeles");

  private static final long LOG_INTERVAL_NANOS = 60_000_000_000L;

  private static final List<String> OPENAI_DIMENSIONS =
      List.of(Dimension.REQUESTS, Dimension.TOKENS);

  /** Anthropic's header infix, and the gate's dimension name for it. */
  private static final Map<String, String> ANTHROPIC_DIMENSIONS =
      Map.of(
          "requests",
          Dimension.REQUESTS,
          "tokens",
          Dimension.TOKENS,
          "input-tokens",
          "input_tokens",
          "output-tokens",
          "output_tokens");

  private static final Set<String> DIMENSION_TYPES =
      Set.of(Dimension.REQUESTS, Dimension.TOKENS, "input_tokens", "output_tokens");

  /**
   * OpenAI's error codes for a reached spend or usage limit or an empty credit balance, whose type
   * is {@code insufficient_quota} (or may be another).
   */
  private static final Set<String> OPENAI_BILLING_CODES =
      Set.of(
          "insufficient_quota",
          "organization_spend_limit_exceeded",
          "project_spend_limit_exceeded",
          "organization_usage_limit_exceeded",
          "credit_balance_exhausted");

  /** Anthropic's usage limit message: when access comes back, in UTC. */
  private static final Pattern REGAIN_ACCESS =
      Pattern.compile("regain access on (\\d{4}-\\d{2}-\\d{2}) at (\\d{2}:\\d{2}) UTC");

  /** Azure API Management's quota renewal as a clock: {@code [d.]hh:mm:ss}. */
  private static final Pattern QUOTA_RENEWS_AT =
      Pattern.compile("replenished in (?:(\\d{1,4})\\.)?(\\d{1,2}):(\\d{2}):(\\d{2})");

  /** One part of Azure API Management's "Try again in 2 hours, 5 minutes and 3 seconds". */
  private static final Pattern QUOTA_RENEWS_IN =
      Pattern.compile("(\\d{1,6}) (day|hour|minute|second)s?\\b");

  private static final LongAdder IGNORED = new LongAdder();
  private static final AtomicLong NEXT_LOG = new AtomicLong(System.nanoTime());

  private ProviderSignals() {}

  /** Values ignored as unreadable by every parse in this JVM so far. */
  public static long ignoredTotal() {
    return IGNORED.sum();
  }

  /**
   * Parses one answer.
   *
   * @param status the HTTP status (0 when no answer came)
   * @param headers the answer's headers, names in any case; null or empty when there were none
   * @param body the answer's body, or null; only read when the status is 400 or more
   * @param receivedAt when the answer arrived (wall clock), to turn reset instants and HTTP dates
   *     into durations
   */
  public static ProviderSignal parse(
      int status, Map<String, List<String>> headers, @Nullable String body, Instant receivedAt) {
    return parse(status, headers, body, receivedAt, false);
  }

  /**
   * Parses one answer, saying whether it is an error that ended a stream the provider had begun
   * with a success (Anthropic's {@code event: error}, an exception message in Bedrock's event
   * stream). Such an error comes without headers of its own (they went with the 200), so the
   * absence of a {@code retry-after} says nothing: an Anthropic {@code rate_limit_error} is then a
   * slow down with no wait given, not a spend limit.
   *
   * @param midStream true for an error that ended a stream begun with a success; the other
   *     parameters as in {@link #parse(int, Map, String, Instant)}, {@code status} being the one
   *     the error stands for
   */
  public static ProviderSignal parse(
      int status,
      Map<String, List<String>> headers,
      @Nullable String body,
      Instant receivedAt,
      boolean midStream) {
    Parse p = new Parse(headers, receivedAt);
    Map<String, ProviderSignal.RateLimit> limits = new HashMap<>();
    for (String dim : OPENAI_DIMENSIONS) {
      p.limit(
          limits,
          dim,
          "x-ratelimit-limit-" + dim,
          "x-ratelimit-remaining-" + dim,
          "x-ratelimit-reset-" + dim,
          false);
    }
    ANTHROPIC_DIMENSIONS.forEach(
        (infix, dim) -> {
          String prefix = "anthropic-ratelimit-" + infix;
          p.limit(limits, dim, prefix + "-limit", prefix + "-remaining", prefix + "-reset", true);
        });
    Duration retryAfter = p.value("retry-after-ms", HeaderValues::retryAfterMillis);
    if (retryAfter == null) {
      retryAfter = p.value("retry-after", text -> HeaderValues.retryAfter(text, receivedAt));
    }
    int safeStatus = status < 0 || status > 999 ? 0 : status;
    if (safeStatus != status) {
      p.ignore(":status", Integer.toString(status));
    }
    Set<String> exhausted = new HashSet<>();
    ProviderSignal.Meaning meaning = ProviderSignal.Meaning.ofStatus(safeStatus);
    ErrorBody.Json error = safeStatus >= 400 ? p.errorBody(body, safeStatus == 429) : null;
    String amazonType = p.amazonErrorType(error);
    if (amazonType != null) {
      meaning = bedrock(amazonType, message(error), meaning, exhausted);
    } else if (error != null && error.path("error").path("status").isTextual()) {
      Gemini gemini = gemini(error.path("error"), receivedAt, meaning, exhausted);
      meaning = gemini.meaning();
      if (gemini.delay() != null && (retryAfter == null || gemini.stop())) {
        retryAfter = gemini.delay();
      }
    } else if (error != null) {
      meaning = openAiOrAnthropic(error, retryAfter != null || midStream, meaning, exhausted);
      if (meaning == ProviderSignal.Meaning.STOP_UNTIL_RESET && retryAfter == null) {
        retryAfter = regainAccess(message(error), receivedAt);
      }
      if (meaning == ProviderSignal.Meaning.STOP_UNTIL_RESET && retryAfter == null) {
        retryAfter = quotaRenewsIn(message(error));
      }
    }
    if (meaning == ProviderSignal.Meaning.SLOW_DOWN && exhausted.isEmpty()) {
      limits.forEach(
          (dim, limit) -> {
            if (limit.remaining() != null && limit.remaining() <= 0) {
              exhausted.add(dim);
            }
          });
    }
    return new ProviderSignal(
        safeStatus, exhausted, limits, retryAfter, null, p.ignored, false, meaning);
  }

  /** Bedrock's error types (its {@code x-amzn-ErrorType} header, or the body's {@code __type}). */
  private static ProviderSignal.Meaning bedrock(
      String type, String message, ProviderSignal.Meaning byStatus, Set<String> exhausted) {
    switch (type) {
      case "ThrottlingException" -> {
        String text = message.toLowerCase(Locale.ROOT);
        if (text.contains("too many tokens")) {
          exhausted.add(Dimension.TOKENS);
        } else if (text.contains("too many requests")) {
          exhausted.add(Dimension.REQUESTS);
        }
        // "Too many tokens per day": the daily quota, which no per-minute pace helps until it
        // renews
        return text.contains("per day")
            ? ProviderSignal.Meaning.STOP_UNTIL_RESET
            : ProviderSignal.Meaning.SLOW_DOWN;
      }
      case "ServiceUnavailableException", "ModelNotReadyException" -> {
        return ProviderSignal.Meaning.OVERLOADED;
      }
      case "ServiceQuotaExceededException" -> {
        return ProviderSignal.Meaning.STOP_UNTIL_RESET;
      }
      default -> {
        return byStatus == ProviderSignal.Meaning.SLOW_DOWN
                || byStatus == ProviderSignal.Meaning.PROVIDER_ERROR
            ? byStatus
            : ProviderSignal.Meaning.NOT_CAPACITY;
      }
    }
  }

  /** What a Gemini API error ({@code google.rpc.Status} as JSON) means, and how long to wait. */
  private record Gemini(ProviderSignal.Meaning meaning, @Nullable Duration delay, boolean stop) {}

  private static Gemini gemini(
      ErrorBody.Json status,
      Instant receivedAt,
      ProviderSignal.Meaning byStatus,
      Set<String> exhausted) {
    Duration retryDelay = null;
    boolean perDay = false;
    for (ErrorBody.Json detail : status.path("details")) {
      String type = detail.path("@type").asText("");
      if (type.endsWith("google.rpc.RetryInfo")) {
        retryDelay = HeaderValues.protoDuration(detail.path("retryDelay").asText(""));
      } else if (type.endsWith("google.rpc.QuotaFailure")) {
        for (ErrorBody.Json violation : detail.path("violations")) {
          String quota =
              (violation.path("quotaId").asText("")
                      + " "
                      + violation.path("quotaMetric").asText(""))
                  .toLowerCase(Locale.ROOT);
          perDay |= quota.contains("perday");
          if (quota.contains("token")) {
            exhausted.add(quota.contains("output") ? "output_tokens" : "input_tokens");
          } else if (quota.contains("request")) {
            exhausted.add(Dimension.REQUESTS);
          }
        }
      }
    }
    switch (status.path("status").asText("")) {
      case "RESOURCE_EXHAUSTED" -> {
        if (perDay) {
          // A per-day quota resets at midnight Pacific time, whatever RetryInfo says (it says a
          // few seconds, after which the quota is still spent).
          return new Gemini(
              ProviderSignal.Meaning.STOP_UNTIL_RESET, untilMidnightPacific(receivedAt), true);
        }
        return new Gemini(ProviderSignal.Meaning.SLOW_DOWN, retryDelay, false);
      }
      case "UNAVAILABLE" -> {
        return new Gemini(ProviderSignal.Meaning.OVERLOADED, retryDelay, false);
      }
      default -> {
        exhausted.clear();
        return new Gemini(byStatus, null, false);
      }
    }
  }

  /**
   * How long from {@code receivedAt} until the instant an Anthropic usage limit message names ("You
   * will regain access on 2026-04-01 at 00:00 UTC."); null when it names none, or one past.
   */
  static @Nullable Duration regainAccess(String message, Instant receivedAt) {
    Matcher regain = REGAIN_ACCESS.matcher(message);
    if (!regain.find()) {
      return null;
    }
    Instant at;
    try {
      at = Instant.parse(regain.group(1) + "T" + regain.group(2) + ":00Z");
    } catch (DateTimeParseException e) {
      return null;
    }
    Duration wait = Duration.between(receivedAt, at);
    return wait.isNegative() ? null : wait;
  }

  /**
   * The wait an Azure API Management quota message names, for an answer without {@code
   * retry-after}: "Token quota is exceeded. Try again in 21 minutes and 33 seconds." or "Out of
   * call volume quota. Quota will be replenished in 1.03:20:00." (days, then hh:mm:ss); null when
   * it names none.
   */
  static @Nullable Duration quotaRenewsIn(String message) {
    Matcher clock = QUOTA_RENEWS_AT.matcher(message);
    if (clock.find()) {
      long days = clock.group(1) == null ? 0 : Long.parseLong(clock.group(1));
      return Duration.ofDays(days)
          .plusHours(Long.parseLong(clock.group(2)))
          .plusMinutes(Long.parseLong(clock.group(3)))
          .plusSeconds(Long.parseLong(clock.group(4)));
    }
    int from = message.indexOf("Try again in ");
    if (from < 0) {
      return null;
    }
    Duration wait = Duration.ZERO;
    boolean named = false;
    for (Matcher part = QUOTA_RENEWS_IN.matcher(message.substring(from)); part.find(); ) {
      long n = Long.parseLong(part.group(1));
      wait =
          switch (part.group(2)) {
            case "day" -> wait.plusDays(n);
            case "hour" -> wait.plusHours(n);
            case "minute" -> wait.plusMinutes(n);
            default -> wait.plusSeconds(n);
          };
      named = true;
    }
    return named ? wait : null;
  }

  /**
   * How long from {@code now} until the next midnight in Pacific time, when the Gemini API's
   * per-day quotas reset.
   */
  static Duration untilMidnightPacific(Instant now) {
    ZonedDateTime here = now.atZone(PACIFIC);
    ZonedDateTime midnight = here.toLocalDate().plusDays(1).atStartOfDay(PACIFIC);
    return Duration.between(now, midnight.toInstant());
  }

  /** OpenAI's, Azure OpenAI's and Anthropic's error bodies. */
  private static ProviderSignal.Meaning openAiOrAnthropic(
      ErrorBody.Json root,
      boolean spendLimitRuledOut,
      ProviderSignal.Meaning byStatus,
      Set<String> exhausted) {
    ErrorBody.Json error = root.path("error");
    String named = ErrorBody.errorType(root);
    String type = named == null ? "" : named;
    String code = error.path("code").asText("");
    if (type.equals("insufficient_quota") || OPENAI_BILLING_CODES.contains(code)) {
      return ProviderSignal.Meaning.STOP_UNTIL_RESET;
    }
    if (type.equals("invalid_request_error")
        && message(root).startsWith("You have reached your specified")) {
      // Anthropic's reached usage limit (of the organisation or a workspace): a 400 that says
      // when access comes back
      return ProviderSignal.Meaning.STOP_UNTIL_RESET;
    }
    if (type.equals("overloaded_error")) {
      return ProviderSignal.Meaning.OVERLOADED;
    }
    if (byStatus == ProviderSignal.Meaning.NOT_CAPACITY
        && root.path("statusCode").value() instanceof Number apim
        && apim.intValue() == 403) {
      // Azure API Management's quotas in front of Azure OpenAI (azure-openai-token-limit's
      // token-quota, the quota and quota-by-key policies): a 403 until the period renews
      String message = message(root);
      if (message.startsWith("Token quota is exceeded")) {
        exhausted.add(Dimension.TOKENS);
        return ProviderSignal.Meaning.STOP_UNTIL_RESET;
      }
      if (message.startsWith("Out of call volume quota")) {
        exhausted.add(Dimension.REQUESTS);
        return ProviderSignal.Meaning.STOP_UNTIL_RESET;
      }
    }
    if (byStatus == ProviderSignal.Meaning.PROVIDER_ERROR
        && (code.equals("ServiceUnavailable")
            || message(root).toLowerCase(Locale.ROOT).contains("overloaded"))) {
      // OpenAI's 503 "The engine is currently overloaded", Azure OpenAI's 503 ServiceUnavailable:
      // before a stream, or in place of a chunk of one under way
      return ProviderSignal.Meaning.OVERLOADED;
    }
    if (byStatus != ProviderSignal.Meaning.SLOW_DOWN) {
      return byStatus;
    }
    if (type.equals("rate_limit_error") && root.path("type").asText("").equals("error")) {
      // Anthropic answers a reached spend limit with a 429 that carries no retry-after; an error
      // event in a stream cannot carry one, so it is no sign of a spend limit there.
      return spendLimitRuledOut
          ? ProviderSignal.Meaning.SLOW_DOWN
          : ProviderSignal.Meaning.STOP_UNTIL_RESET;
    }
    if (DIMENSION_TYPES.contains(type)) {
      exhausted.add(type);
      String message = message(root).toLowerCase(Locale.ROOT);
      if (message.contains("per day (rpd)") || message.contains("per day (tpd)")) {
        // OpenAI's requests or tokens per day: the per-minute caps are not what was hit
        return ProviderSignal.Meaning.STOP_UNTIL_RESET;
      }
    } else {
      String message = message(root).toLowerCase(Locale.ROOT);
      if (message.contains("exceeded token rate limit")) {
        exhausted.add(Dimension.TOKENS);
      } else if (message.contains("exceeded call rate limit")
          || message.contains("exceeded request rate limit")) {
        exhausted.add(Dimension.REQUESTS);
      }
    }
    return ProviderSignal.Meaning.SLOW_DOWN;
  }

  /** The start of an error body's message ({@code error.message}, else {@code message}). */
  private static String message(ErrorBody.@Nullable Json root) {
    if (root == null) {
      return "";
    }
    ErrorBody.Json message = root.path("error").path("message");
    if (!message.isTextual()) {
      message = root.path("message");
    }
    if (!message.isTextual()) {
      message = root.path("Message");
    }
    String text = message.asText("");
    return text.length() > MAX_MESSAGE ? text.substring(0, MAX_MESSAGE) : text;
  }

  /** One parse's header view and its count of ignored values. */
  private static final class Parse {
    private final Map<String, String> headers = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
    private final Instant receivedAt;
    private int ignored;

    Parse(Map<String, List<String>> raw, Instant receivedAt) {
      this.receivedAt = receivedAt;
      if (raw != null) {
        raw.forEach(
            (name, values) -> {
              if (name != null && values != null && !values.isEmpty() && values.get(0) != null) {
                headers.putIfAbsent(name, values.get(0).trim());
              }
            });
      }
    }

    void limit(
        Map<String, ProviderSignal.RateLimit> out,
        String dim,
        String limitName,
        String remainingName,
        String resetName,
        boolean instant) {
      if (!headers.containsKey(limitName)
          && !headers.containsKey(remainingName)
          && !headers.containsKey(resetName)) {
        return;
      }
      Double limit = value(limitName, HeaderValues::count);
      Double remaining = value(remainingName, HeaderValues::count);
      Duration reset =
          instant
              ? value(resetName, text -> HeaderValues.untilInstant(text, receivedAt))
              : value(resetName, HeaderValues::goDuration);
      if (limit != null || remaining != null || reset != null) {
        out.put(dim, new ProviderSignal.RateLimit(limit, remaining, reset));
      }
    }

    <T> @Nullable T value(String name, java.util.function.Function<String, T> read) {
      String text = headers.get(name);
      if (text == null) {
        return null;
      }
      T value = read.apply(text);
      if (value == null) {
        ignore(name, text);
      }
      return value;
    }

    /**
     * The error body as JSON, or null when there is none or it is not a JSON object; an unreadable
     * body counts as ignored only on a 429 ({@code counted}), where it was expected to say which
     * dimension was exhausted.
     */
    ErrorBody.@Nullable Json errorBody(@Nullable String body, boolean counted) {
      if (body == null || body.isBlank()) {
        return null;
      }
      String text = body.length() > MAX_BODY ? body.substring(0, MAX_BODY) : body;
      try {
        return ErrorBody.object(text);
      } catch (IllegalArgumentException e) {
        if (counted) {
          ignore("(body)", "not JSON");
        }
        return null;
      }
    }

    /**
     * Bedrock's error type: the {@code x-amzn-ErrorType} header up to its first colon, else the
     * body's {@code __type} after its last {@code #}; null when neither is there.
     */
    @Nullable String amazonErrorType(ErrorBody.@Nullable Json body) {
      String header = headers.get("x-amzn-errortype");
      if (header != null && !header.isBlank()) {
        int colon = header.indexOf(':');
        return colon < 0 ? header : header.substring(0, colon);
      }
      if (body != null && body.path("__type").isTextual()) {
        String type = body.path("__type").asText();
        return type.substring(type.lastIndexOf('#') + 1);
      }
      return null;
    }

    void ignore(String name, String text) {
      ignored++;
      IGNORED.increment();
      long now = System.nanoTime();
      long due = NEXT_LOG.get();
      if (now - due >= 0 && NEXT_LOG.compareAndSet(due, now + LOG_INTERVAL_NANOS)) {
        String shown = text.length() > 40 ? text.substring(0, 40) + "…" : text;
        LOG.warn(
            "ignored an unreadable provider value {}: '{}' ({} ignored so far)",
            name,
            shown,
            IGNORED.sum());
      }
    }
  }
}
