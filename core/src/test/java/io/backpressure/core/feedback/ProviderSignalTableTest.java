package io.backpressure.core.feedback;

import static org.assertj.core.api.Assertions.assertThat;

import io.backpressure.core.feedback.ProviderSignal.Meaning;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * One test per row of the signal table in {@link ProviderSignals}: each provider's answer, with the
 * body and headers as the provider documents them, read into what it means for the gate.
 */
class ProviderSignalTableTest {
  /** 08:00:00.250 UTC on 1 December 2026 is 00:00:00.250 Pacific (PST, UTC−8). */
  private static final Instant NOW = Instant.parse("2026-12-01T08:00:00.250Z");

  private static ProviderSignal parse(int status, Map<String, List<String>> headers, String body) {
    return ProviderSignals.parse(status, headers, body, NOW);
  }

  // OpenAI

  @Test
  void openAiTokensPerMinuteIsSlowDownOnTokens() {
    ProviderSignal s =
        parse(
            429,
            Map.of(
                "x-ratelimit-limit-tokens", List.of("30000"),
                "x-ratelimit-remaining-tokens", List.of("0"),
                "x-ratelimit-reset-tokens", List.of("760ms"),
                "retry-after", List.of("1")),
            """
            {"error":{"message":"Rate limit reached for gpt-4o in organization org-abc on tokens \
            per min (TPM): Limit 30000, Used 29760, Requested 620. Please try again in 760ms.",\
            "type":"tokens","param":null,"code":"rate_limit_exceeded"}}""");

    assertThat(s.meaning()).isEqualTo(Meaning.SLOW_DOWN);
    assertThat(s.exhausted()).containsExactly("tokens");
    assertThat(s.retryAfter()).isEqualTo(Duration.ofSeconds(1));
    assertThat(s.limits().get("tokens").reset()).isEqualTo(Duration.ofMillis(760));
  }

  @Test
  void openAiInsufficientQuotaIsStopUntilAReset() {
    ProviderSignal s =
        parse(
            429,
            Map.of(),
            """
            {"error":{"message":"You exceeded your current quota, please check your plan and \
            billing details.","type":"insufficient_quota","param":null,\
            "code":"insufficient_quota"}}""");

    assertThat(s.meaning()).isEqualTo(Meaning.STOP_UNTIL_RESET);
    assertThat(s.rateLimited()).isFalse();
    assertThat(s.retryAfter()).isNull();
  }

  /**
   * OpenAI's requests per day: a 429 of type {@code requests} like a per-minute one, but its
   * message names the daily limit, so it stops until the retry-after instead of cutting the
   * per-minute cap.
   */
  @Test
  void openAiRequestsPerDayIsStopUntilTheRetryAfter() {
    ProviderSignal s =
        parse(
            429,
            Map.of("retry-after", List.of("432")),
            """
            {"error":{"message":"Rate limit reached for gpt-4o-mini in organization org-abc on             requests per day (RPD): Limit 200, Used 200, Requested 1. Please try again in 7m12s.             Visit https://platform.openai.com/account/rate-limits to learn more.",            "type":"requests","param":null,"code":"rate_limit_exceeded"}}""");

    assertThat(s.meaning()).isEqualTo(Meaning.STOP_UNTIL_RESET);
    assertThat(s.rateLimited()).isFalse();
    assertThat(s.exhausted()).containsExactly("requests");
    assertThat(s.retryAfter()).isEqualTo(Duration.ofSeconds(432));
  }

  @Test
  void openAiTokensPerDayIsStopOnTokens() {
    ProviderSignal s =
        parse(
            429,
            Map.of("retry-after-ms", List.of("3600000")),
            """
            {"error":{"message":"Rate limit reached for gpt-4o-mini in organization org-abc on             tokens per day (TPD): Limit 90000, Used 89800, Requested 620. Please try again in             1h0m0s.","type":"tokens","param":null,"code":"rate_limit_exceeded"}}""");

    assertThat(s.meaning()).isEqualTo(Meaning.STOP_UNTIL_RESET);
    assertThat(s.exhausted()).containsExactly("tokens");
    assertThat(s.retryAfter()).isEqualTo(Duration.ofHours(1));
  }

  /** A billing code with a type other than {@code insufficient_quota} stops as well. */
  @Test
  void openAiSpendLimitCodesAreStopUntilAReset() {
    for (String code :
        List.of(
            "organization_spend_limit_exceeded",
            "project_spend_limit_exceeded",
            "organization_usage_limit_exceeded",
            "credit_balance_exhausted")) {
      ProviderSignal s =
          parse(
              429,
              Map.of(),
              "{\"error\":{\"message\":\"Limit reached.\",\"type\":\"billing_error\","
                  + "\"param\":null,\"code\":\""
                  + code
                  + "\"}}");

      assertThat(s.meaning()).as(code).isEqualTo(Meaning.STOP_UNTIL_RESET);
    }
  }

  @Test
  void openAiNotFoundIsNotACapacitySignal() {
    ProviderSignal s =
        parse(
            404,
            Map.of(),
            """
            {"error":{"message":"The model `gpt-9` does not exist or you do not have access to it.",\
            "type":"invalid_request_error","param":null,"code":"model_not_found"}}""");

    assertThat(s.meaning()).isEqualTo(Meaning.NOT_CAPACITY);
    assertThat(s.exhausted()).isEmpty();
  }

  /** OpenAI's 503 for an overloaded engine: overloaded for everyone, the caps unchanged. */
  @Test
  void openAiOverloadedIsOverloadedBeforeOrInPlaceOfAStreamChunk() {
    String body =
        """
        {"error":{"message":"The engine is currently overloaded, please try again later.",\
        "type":"server_error","param":null,"code":null}}""";

    for (boolean midStream : new boolean[] {false, true}) {
      ProviderSignal s = ProviderSignals.parse(503, Map.of(), body, NOW, midStream);

      assertThat(s.meaning()).as("midStream %s", midStream).isEqualTo(Meaning.OVERLOADED);
      assertThat(s.providerError()).isFalse();
      assertThat(s.rateLimited()).isFalse();
    }
  }

  /** A 500 that does not say it is overloaded stays a provider error. */
  @Test
  void openAiServerErrorIsAProviderError() {
    ProviderSignal s =
        ProviderSignals.parse(
            500,
            Map.of(),
            """
            {"error":{"message":"The server had an error while processing your request. Sorry \
            about that!","type":"server_error","param":null,"code":null}}""",
            NOW,
            true);

    assertThat(s.meaning()).isEqualTo(Meaning.PROVIDER_ERROR);
  }

  // Azure OpenAI

  @Test
  void azureTokenRateLimitIsSlowDownOnTokensWithRetryAfterMs() {
    ProviderSignal s =
        parse(
            429,
            Map.of(
                "retry-after", List.of("6"),
                "retry-after-ms", List.of("5310"),
                "x-ratelimit-remaining-requests", List.of("57"),
                "x-ratelimit-remaining-tokens", List.of("0")),
            """
            {"error":{"code":"429","message":"Requests to the ChatCompletions_Create Operation \
            under Azure OpenAI API version 2024-10-21 have exceeded token rate limit of your \
            current OpenAI S0 pricing tier. Please retry after 6 seconds. Please go here: \
            https://aka.ms/oai/quotaincrease if you would like to further increase the default \
            rate limit."}}""");

    assertThat(s.meaning()).isEqualTo(Meaning.SLOW_DOWN);
    assertThat(s.exhausted()).containsExactly("tokens");
    assertThat(s.retryAfter()).isEqualTo(Duration.ofMillis(5310));
  }

  @Test
  void azureCallRateLimitIsSlowDownOnRequests() {
    ProviderSignal s =
        parse(
            429,
            Map.of("retry-after", List.of("1"), "retry-after-ms", List.of("800")),
            """
            {"error":{"code":"429","message":"Requests to the ChatCompletions_Create Operation \
            under Azure OpenAI API version 2024-10-21 have exceeded call rate limit of your \
            current OpenAI S0 pricing tier. Please retry after 1 second."}}""");

    assertThat(s.meaning()).isEqualTo(Meaning.SLOW_DOWN);
    assertThat(s.exhausted()).containsExactly("requests");
    assertThat(s.retryAfter()).isEqualTo(Duration.ofMillis(800));
  }

  @Test
  void azureUnknownDeploymentIsNotACapacitySignal() {
    ProviderSignal s =
        parse(
            404,
            Map.of(),
            """
            {"error":{"code":"DeploymentNotFound","message":"The API deployment for this \
            resource does not exist."}}""");

    assertThat(s.meaning()).isEqualTo(Meaning.NOT_CAPACITY);
  }

  /**
   * A daily token quota in front of Azure OpenAI is API Management's ({@code
   * azure-openai-token-limit} with {@code token-quota-period="Daily"}): a 403 with its own body,
   * until the retry-after.
   */
  @Test
  void azureApiManagementTokenQuotaIsStopOnTokensUntilTheRetryAfter() {
    ProviderSignal s =
        parse(
            403,
            Map.of("retry-after", List.of("1293")),
            """
            {"statusCode": 403, "message": "Token quota is exceeded. Try again in 21 minutes             and 33 seconds."}""");

    assertThat(s.meaning()).isEqualTo(Meaning.STOP_UNTIL_RESET);
    assertThat(s.exhausted()).containsExactly("tokens");
    assertThat(s.retryAfter()).isEqualTo(Duration.ofSeconds(1293));
  }

  /** Without a retry-after, the wait API Management's message names ends the stop. */
  @Test
  void azureApiManagementQuotasWithoutRetryAfterStopForTheWaitTheirMessageNames() {
    ProviderSignal tokens =
        parse(
            403,
            Map.of(),
            """
            {"statusCode": 403, "message": "Token quota is exceeded. Try again in 2 hours,             21 minutes and 33 seconds."}""");
    ProviderSignal calls =
        parse(
            403,
            Map.of(),
            """
            {"statusCode": 403, "message": "Out of call volume quota. Quota will be             replenished in 1.02:05:00."}""");

    assertThat(tokens.meaning()).isEqualTo(Meaning.STOP_UNTIL_RESET);
    assertThat(tokens.retryAfter()).isEqualTo(Duration.parse("PT2H21M33S"));
    assertThat(calls.meaning()).isEqualTo(Meaning.STOP_UNTIL_RESET);
    assertThat(calls.exhausted()).containsExactly("requests");
    assertThat(calls.retryAfter()).isEqualTo(Duration.parse("PT26H5M"));
  }

  /** A 403 of Azure OpenAI's own (a key without access) says nothing of capacity. */
  @Test
  void azureForbiddenWithoutAQuotaMessageIsNotACapacitySignal() {
    ProviderSignal s =
        parse(
            403,
            Map.of(),
            """
            {"statusCode": 403, "message": "Access denied due to Virtual Network/Firewall             rules."}""");

    assertThat(s.meaning()).isEqualTo(Meaning.NOT_CAPACITY);
  }

  /**
   * Azure OpenAI's 503 {@code ServiceUnavailable}, which also ends a stream under way as the {@code
   * error} object in place of a chunk (no headers of its own there).
   */
  @Test
  void azureServiceUnavailableIsOverloadedBeforeOrInPlaceOfAStreamChunk() {
    String body =
        """
        {"error":{"code":"ServiceUnavailable","message":"The service is temporarily unable to \
        process your request. Please try again later."}}""";

    ProviderSignal before =
        ProviderSignals.parse(503, Map.of("retry-after", List.of("5")), body, NOW, false);
    ProviderSignal midStream = ProviderSignals.parse(503, Map.of(), body, NOW, true);

    assertThat(before.meaning()).isEqualTo(Meaning.OVERLOADED);
    assertThat(before.retryAfter()).isEqualTo(Duration.ofSeconds(5));
    assertThat(midStream.meaning()).isEqualTo(Meaning.OVERLOADED);
    assertThat(midStream.retryAfter()).isNull();
  }

  // Anthropic

  @Test
  void anthropicRateLimitWithRetryAfterIsSlowDown() {
    ProviderSignal s =
        parse(
            429,
            Map.of(
                "retry-after", List.of("12"),
                "anthropic-ratelimit-output-tokens-remaining", List.of("0")),
            """
            {"type":"error","error":{"type":"rate_limit_error","message":"This request would \
            exceed your organization's rate limit of 8,000 output tokens per minute."}}""");

    assertThat(s.meaning()).isEqualTo(Meaning.SLOW_DOWN);
    assertThat(s.exhausted()).containsExactly("output_tokens");
    assertThat(s.retryAfter()).isEqualTo(Duration.ofSeconds(12));
  }

  @Test
  void anthropicRateLimitWithoutRetryAfterIsASpendLimitAndStops() {
    ProviderSignal s =
        parse(
            429,
            Map.of(),
            """
            {"type":"error","error":{"type":"rate_limit_error","message":"You have reached your \
            specified API usage limits. You will regain access on 2027-01-01 at 00:00 UTC."}}""");

    assertThat(s.meaning()).isEqualTo(Meaning.STOP_UNTIL_RESET);
    assertThat(s.retryAfter())
        .as("until the instant the message names")
        .isEqualTo(Duration.between(NOW, Instant.parse("2027-01-01T00:00:00Z")));
  }

  @Test
  void anthropicRateLimitWithoutRetryAfterOrInstantStopsForTheDefaultHold() {
    ProviderSignal s =
        parse(
            429,
            Map.of(),
            """
            {"type":"error","error":{"type":"rate_limit_error","message":"Your organization             has reached its monthly spend cap."}}""");

    assertThat(s.meaning()).isEqualTo(Meaning.STOP_UNTIL_RESET);
    assertThat(s.retryAfter()).isNull();
  }

  /**
   * Anthropic's reached usage limit, of the organisation or of a workspace: a 400 {@code
   * invalid_request_error} whose message says when access comes back.
   */
  @Test
  void anthropicUsageLimitIsStopUntilTheInstantItNames() {
    for (String scope : List.of("", "workspace ")) {
      ProviderSignal s =
          parse(
              400,
              Map.of(),
              "{\"type\":\"error\",\"error\":{\"type\":\"invalid_request_error\","
                  + "\"message\":\"You have reached your specified "
                  + scope
                  + "API usage limits. You will regain access on 2026-12-02 at 00:00 UTC.\"}}");

      assertThat(s.meaning()).as(scope).isEqualTo(Meaning.STOP_UNTIL_RESET);
      assertThat(s.exhausted()).isEmpty();
      assertThat(s.retryAfter())
          .isEqualTo(Duration.between(NOW, Instant.parse("2026-12-02T00:00:00Z")));
    }
  }

  /**
   * The same body as a spend limit's, but as the data of the {@code event: error} that ended a
   * stream begun with a 200: no headers could come with it, so the missing retry-after says
   * nothing, and the gate slows down without a known wait instead of stopping.
   */
  @Test
  void anthropicRateLimitErrorEndingAStreamIsSlowDownWithNoWaitGiven() {
    ProviderSignal s =
        ProviderSignals.parse(
            429,
            Map.of(),
            """
            {"type":"error","error":{"type":"rate_limit_error","message":"Number of request \
            tokens has exceeded your per-minute rate limit."}}""",
            NOW,
            true);

    assertThat(s.meaning()).isEqualTo(Meaning.SLOW_DOWN);
    assertThat(s.rateLimited()).isTrue();
    assertThat(s.retryAfter()).isNull();
    assertThat(s.exhausted()).isEmpty();
  }

  @Test
  void anthropicOverloadedIsOverloadedNotARateLimitNorAnOutage() {
    ProviderSignal s =
        parse(
            529,
            Map.of(),
            """
            {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}""");

    assertThat(s.meaning()).isEqualTo(Meaning.OVERLOADED);
    assertThat(s.rateLimited()).isFalse();
    assertThat(s.providerError()).isFalse();
  }

  @Test
  void anthropicInvalidRequestIsNotACapacitySignal() {
    ProviderSignal s =
        parse(
            400,
            Map.of(),
            """
            {"type":"error","error":{"type":"invalid_request_error","message":"max_tokens: \
            Field required"}}""");

    assertThat(s.meaning()).isEqualTo(Meaning.NOT_CAPACITY);
  }

  // Gemini API

  private static String gemini429(String quotaId, String metric, String retryDelay) {
    return """
        {"error":{"code":429,"message":"You exceeded your current quota, please check your plan \
        and billing details. For more information on this error, head to: \
        https://ai.google.dev/gemini-api/docs/rate-limits.","status":"RESOURCE_EXHAUSTED",\
        "details":[{"@type":"type.googleapis.com/google.rpc.QuotaFailure","violations":[\
        {"quotaMetric":"generativelanguage.googleapis.com/%s","quotaId":"%s",\
        "quotaDimensions":{"location":"global","model":"gemini-2.0-flash"},"quotaValue":"15"}]},\
        {"@type":"type.googleapis.com/google.rpc.Help","links":[{"description":"Learn more about \
        Gemini API quotas","url":"https://ai.google.dev/gemini-api/docs/rate-limits"}]},\
        {"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"%s"}]}}"""
        .formatted(metric, quotaId, retryDelay);
  }

  @Test
  void geminiPerMinuteRequestsIsSlowDownWithTheRetryInfoDelay() {
    ProviderSignal s =
        parse(
            429,
            Map.of(),
            gemini429(
                "GenerateRequestsPerMinutePerProjectPerModel-FreeTier",
                "generate_content_free_tier_requests",
                "7s"));

    assertThat(s.meaning()).isEqualTo(Meaning.SLOW_DOWN);
    assertThat(s.exhausted()).containsExactly("requests");
    assertThat(s.retryAfter()).isEqualTo(Duration.ofSeconds(7));
    assertThat(s.ignored()).isZero();
  }

  @Test
  void geminiPerMinuteInputTokensIsSlowDownOnInputTokens() {
    ProviderSignal s =
        parse(
            429,
            Map.of(),
            gemini429(
                "GenerateContentInputTokensPerModelPerMinute-FreeTier",
                "generate_content_free_tier_input_token_count",
                "38.261s"));

    assertThat(s.meaning()).isEqualTo(Meaning.SLOW_DOWN);
    assertThat(s.exhausted()).containsExactly("input_tokens");
    assertThat(s.retryAfter()).isEqualTo(Duration.ofMillis(38_261));
  }

  @Test
  void geminiPerDayIsStopUntilTheNextMidnightPacific() {
    ProviderSignal s =
        parse(
            429,
            Map.of(),
            gemini429(
                "GenerateRequestsPerDayPerProjectPerModel-FreeTier",
                "generate_content_free_tier_requests",
                "43s"));

    assertThat(s.meaning()).isEqualTo(Meaning.STOP_UNTIL_RESET);
    assertThat(s.exhausted()).containsExactly("requests");
    // 00:00:00.250 Pacific now: the next midnight is a day less 250 ms away.
    assertThat(s.retryAfter()).isEqualTo(Duration.ofDays(1).minusMillis(250));
  }

  @Test
  void midnightPacificFollowsDaylightSavingTime() {
    // 2026-07-01T06:59:59Z is 23:59:59 PDT (UTC−7); 2026-11-01 has 25 hours in Pacific time.
    assertThat(ProviderSignals.untilMidnightPacific(Instant.parse("2026-07-01T06:59:59Z")))
        .isEqualTo(Duration.ofSeconds(1));
    assertThat(ProviderSignals.untilMidnightPacific(Instant.parse("2026-11-01T07:00:00Z")))
        .isEqualTo(Duration.ofHours(25));
  }

  @Test
  void geminiUnavailableIsOverloaded() {
    ProviderSignal s =
        parse(
            503,
            Map.of(),
            """
            {"error":{"code":503,"message":"The model is overloaded. Please try again later.",\
            "status":"UNAVAILABLE"}}""");

    assertThat(s.meaning()).isEqualTo(Meaning.OVERLOADED);
    assertThat(s.providerError()).isFalse();
  }

  @Test
  void geminiInvalidArgumentIsNotACapacitySignal() {
    ProviderSignal s =
        parse(
            400,
            Map.of(),
            """
            {"error":{"code":400,"message":"* GenerateContentRequest.contents: contents is not \
            specified\\n","status":"INVALID_ARGUMENT"}}""");

    assertThat(s.meaning()).isEqualTo(Meaning.NOT_CAPACITY);
    assertThat(s.exhausted()).isEmpty();
  }

  // Bedrock

  private static Map<String, List<String>> amazon(String type) {
    return Map.of(
        "x-amzn-ErrorType",
        List.of(type + ":http://internal.amazon.com/coral/com.amazon.bedrock/"),
        "x-amzn-RequestId",
        List.of("6f1f1e8e-3c5a-4a55-9a34-0d7f0c2a1b7e"));
  }

  @Test
  void bedrockThrottlingIsSlowDownWithoutHeadersOrWait() {
    ProviderSignal s =
        parse(
            429,
            amazon("ThrottlingException"),
            """
            {"message":"Too many tokens, please wait before trying again."}""");

    assertThat(s.meaning()).isEqualTo(Meaning.SLOW_DOWN);
    assertThat(s.exhausted()).containsExactly("tokens");
    assertThat(s.retryAfter()).isNull();
    assertThat(s.limits()).isEmpty();
  }

  @Test
  void bedrockThrottlingOfRequestsNamesRequests() {
    ProviderSignal s =
        parse(
            429,
            Map.of(),
            """
            {"__type":"com.amazon.bedrock#ThrottlingException",\
            "message":"Too many requests, please wait before trying again."}""");

    assertThat(s.meaning()).isEqualTo(Meaning.SLOW_DOWN);
    assertThat(s.exhausted()).containsExactly("requests");
  }

  /** Bedrock's daily token quota: a throttling whose message says "per day" stops. */
  @Test
  void bedrockTokensPerDayIsStopOnTokens() {
    ProviderSignal s =
        parse(
            429,
            amazon("ThrottlingException"),
            """
            {"message":"Too many tokens per day, please wait before trying again."}""");

    assertThat(s.meaning()).isEqualTo(Meaning.STOP_UNTIL_RESET);
    assertThat(s.rateLimited()).isFalse();
    assertThat(s.exhausted()).containsExactly("tokens");
    assertThat(s.retryAfter()).isNull();
  }

  @Test
  void bedrockServiceUnavailableAndModelNotReadyAreOverloaded() {
    assertThat(
            parse(
                    503,
                    amazon("ServiceUnavailableException"),
                    "{\"message\":\"Bedrock is unable to process your request.\"}")
                .meaning())
        .isEqualTo(Meaning.OVERLOADED);
    assertThat(
            parse(
                    429,
                    amazon("ModelNotReadyException"),
                    "{\"message\":\"Model is not ready for inference.\"}")
                .meaning())
        .isEqualTo(Meaning.OVERLOADED);
  }

  @Test
  void bedrockServiceQuotaExceededIsStopUntilAReset() {
    ProviderSignal s =
        parse(
            400,
            amazon("ServiceQuotaExceededException"),
            "{\"message\":\"Your request exceeds the service quota for your account.\"}");

    assertThat(s.meaning()).isEqualTo(Meaning.STOP_UNTIL_RESET);
  }

  @Test
  void bedrockValidationAndNotFoundAreNotCapacitySignals() {
    assertThat(
            parse(
                    400,
                    amazon("ValidationException"),
                    "{\"message\":\"The provided model identifier is invalid.\"}")
                .meaning())
        .isEqualTo(Meaning.NOT_CAPACITY);
    assertThat(
            parse(
                    404,
                    amazon("ResourceNotFoundException"),
                    "{\"message\":\"Could not resolve the foundation model.\"}")
                .meaning())
        .isEqualTo(Meaning.NOT_CAPACITY);
  }

  // Any provider

  @Test
  void aBare429IsSlowDownAndAnotherFiveHundredAProviderError() {
    assertThat(parse(429, Map.of(), null).meaning()).isEqualTo(Meaning.SLOW_DOWN);
    assertThat(parse(500, Map.of(), "<html>oops</html>").meaning())
        .isEqualTo(Meaning.PROVIDER_ERROR);
    assertThat(parse(500, Map.of(), "<html>oops</html>").ignored()).isZero();
    assertThat(parse(0, Map.of(), null).meaning()).isEqualTo(Meaning.PROVIDER_ERROR);
    assertThat(parse(200, Map.of(), null).meaning()).isEqualTo(Meaning.ANSWERED);
  }

  @Test
  void theSevenValueConstructorTakesTheMeaningFromTheStatus() {
    assertThat(ProviderSignal.ofStatus(529).meaning()).isEqualTo(Meaning.OVERLOADED);
    assertThat(ProviderSignal.ofStatus(429).meaning()).isEqualTo(Meaning.SLOW_DOWN);
    assertThat(ProviderSignal.ofStatus(401).meaning()).isEqualTo(Meaning.NOT_CAPACITY);
    assertThat(ProviderSignal.resumedAfterOutage().providerError()).isFalse();
  }
}
