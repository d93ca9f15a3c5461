package io.backpressure.mock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import io.backpressure.core.feedback.ProviderSignal;
import io.backpressure.core.feedback.ProviderSignals;
import io.backpressure.mock.limit.LimitSpec;
import io.backpressure.mock.limit.WindowModel;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The caps per calendar day: counted exactly from midnight in their zone, checked before the
 * per-period caps, charged nothing when they refuse, answered in each dialect as that provider
 * answers a spent daily quota, and read by the gate's parser as a stop until the next day.
 */
class DailyCapsTest {

  /** 22:00 UTC: two hours before the next UTC day. */
  private static final Instant LATE = Instant.parse("2026-12-07T22:00:00Z");

  private static final String ANTHROPIC =
      "{\"model\":\"claude-x\",\"max_tokens\":10,"
          + "\"messages\":[{\"role\":\"user\",\"content\":\"abcdefgh\"}]}";
  private static final String GEMINI = "{\"contents\":[{\"parts\":[{\"text\":\"abcdefgh\"}]}]}";
  private static final String BEDROCK =
      "{\"messages\":[{\"role\":\"user\",\"content\":[{\"text\":\"abcdefgh\"}]}]}";
  private static final String AZURE =
      "/openai/deployments/gpt-4o-prod/chat/completions?api-version=2024-10-21";

  private static MockProviderConfig.Builder config(SteppedClock clock, DailyCaps daily) {
    return MockProviderConfig.builder()
        .latencyMs(0, 0)
        .completionTokens(new CompletionTokens.Fixed(10))
        .wallClock(clock)
        .daily(daily);
  }

  @Test
  void theDaysRequestsAreCountedExactlyAndTheNextDayStartsAfresh() throws Exception {
    SteppedClock clock = new SteppedClock(LATE);
    try (MockProvider provider =
        MockProvider.start(config(clock, DailyCaps.utc(2L, null)).build())) {
      Http http = new Http(provider);
      assertThat(http.post("/v1/chat/completions", Http.chat("a", null)).status()).isEqualTo(200);
      assertThat(http.post("/v1/chat/completions", Http.chat("a", null)).status()).isEqualTo(200);

      Http.Answer refused = http.post("/v1/chat/completions", Http.chat("a", null));
      assertThat(refused.status()).isEqualTo(429);
      JsonNode error = refused.body().get("error");
      assertThat(error.get("type").asText()).isEqualTo("requests");
      assertThat(error.get("code").asText()).isEqualTo("rate_limit_exceeded");
      assertThat(error.get("message").asText())
          .startsWith(
              "Rate limit reached for gpt-4o-mini in organization org-mock on requests per day"
                  + " (RPD): Limit 2, Used 2, Requested 1. Please try again in 2h0m0s.");
      assertThat(refused.header("retry-after")).isEqualTo("7200");
      assertThat(refused.header("retry-after-ms")).isEqualTo("7200000");

      clock.advance(Duration.ofMinutes(119));
      assertThat(http.post("/v1/chat/completions", Http.chat("a", null)).status())
          .as("the last minute of the day")
          .isEqualTo(429);
      clock.advance(Duration.ofMinutes(1));
      assertThat(http.post("/v1/chat/completions", Http.chat("a", null)).status())
          .as("midnight UTC")
          .isEqualTo(200);

      List<RequestRecord> records = provider.records();
      assertThat(records)
          .extracting(RequestRecord::status)
          .containsExactly(200, 200, 429, 429, 200);
      assertThat(records.get(2).boundDimension()).isEqualTo("requests_per_day");
      assertThat(records.get(2).retryAfterNanos()).isEqualTo(Duration.ofHours(2).toNanos());
      Summary summary = provider.summary();
      assertThat(summary.dayLimited()).isEqualTo(2);
      assertThat(summary.rateLimited()).isZero();
      assertThat(summary.requests()).isEqualTo(5);
    }
  }

  /**
   * A refusal of the day charges nothing: not the day, and not the per-period caps, whose one call
   * per ten minutes is still there for the next day's first call.
   */
  @Test
  void aRefusalOfTheDayChargesNothingAndTheTokensCapCountsCharges() throws Exception {
    SteppedClock clock = new SteppedClock(LATE);
    MockProviderConfig config =
        config(clock, DailyCaps.utc(null, 30L))
            .requests(LimitSpec.of(WindowModel.FIXED, 2, Duration.ofMinutes(10)))
            .build();
    try (MockProvider provider = MockProvider.start(config)) {
      Http http = new Http(provider);
      // 2 prompt tokens (8 characters) and 10 completion tokens: 12 a call
      assertThat(http.post("/v1/chat/completions", Http.chat("abcdefgh", null)).status())
          .isEqualTo(200);
      assertThat(http.post("/v1/chat/completions", Http.chat("abcdefgh", null)).status())
          .isEqualTo(200);
      Http.Answer refused = http.post("/v1/chat/completions", Http.chat("abcdefgh", null));
      assertThat(refused.status()).isEqualTo(429);
      assertThat(refused.body().get("error").get("type").asText()).isEqualTo("tokens");
      assertThat(refused.body().get("error").get("message").asText())
          .contains("on tokens per day (TPD): Limit 30, Used 24, Requested 12.");
      assertThat(provider.records().get(2).chargedTokens()).isEqualTo(12);

      clock.advance(Duration.ofHours(2));
      assertThat(http.post("/v1/chat/completions", Http.chat("abcdefgh", null)).status())
          .as("neither the day nor the ten-minute window counted the refusal")
          .isEqualTo(429);
      assertThat(provider.records().get(3).boundDimension())
          .as("the ten-minute window, full with the two calls of the day before")
          .isEqualTo("requests");
    }
  }

  /**
   * A day in {@code America/Los_Angeles} starts at midnight there, whatever UTC says; on the day
   * clocks go forward it lasts 23 hours.
   */
  @Test
  void aDayInAZoneStartsAtItsMidnightAcrossDaylightSavingTime() throws Exception {
    ZoneId pacific = ZoneId.of("America/Los_Angeles");
    // 06:00 UTC on 8 March 2026 is 22:00 PST on 7 March; midnight PST comes at 08:00 UTC.
    SteppedClock clock = new SteppedClock(Instant.parse("2026-03-08T06:00:00Z"));
    try (MockProvider provider =
        MockProvider.start(config(clock, DailyCaps.utc(1L, null).in(pacific)).build())) {
      Http http = new Http(provider);
      assertThat(http.post("/v1/chat/completions", Http.chat("a", null)).status()).isEqualTo(200);
      assertThat(http.post("/v1/chat/completions", Http.chat("a", null)).header("retry-after"))
          .isEqualTo(Long.toString(Duration.ofHours(2).toSeconds()));

      clock.advance(Duration.ofHours(2));
      assertThat(http.post("/v1/chat/completions", Http.chat("a", null)).status()).isEqualTo(200);
      // 8 March in Los Angeles is 23 hours long: it ends at 07:00 UTC on 9 March.
      assertThat(http.post("/v1/chat/completions", Http.chat("a", null)).header("retry-after"))
          .isEqualTo(Long.toString(Duration.ofHours(23).toSeconds()));
    }
  }

  @Test
  void eachDialectAnswersASpentDayAsItsProviderDoes() throws Exception {
    SteppedClock clock = new SteppedClock(LATE);
    try (MockProvider provider =
        MockProvider.start(config(clock, DailyCaps.utc(null, 1L)).build())) {
      Http http = new Http(provider);

      Http.Answer anthropic = http.post("/v1/messages", ANTHROPIC);
      assertThat(anthropic.status()).isEqualTo(400);
      assertThat(anthropic.body().get("type").asText()).isEqualTo("error");
      assertThat(anthropic.body().get("error").get("type").asText())
          .isEqualTo("invalid_request_error");
      assertThat(anthropic.body().get("error").get("message").asText())
          .isEqualTo(
              "You have reached your specified API usage limits. You will regain access on"
                  + " 2026-12-08 at 00:00 UTC.");
      assertThat(anthropic.header("retry-after")).isNull();

      Http.Answer gemini = http.post("/v1beta/models/gemini-2.0-flash:generateContent", GEMINI);
      assertThat(gemini.status()).isEqualTo(429);
      JsonNode status = gemini.body().get("error");
      assertThat(status.get("status").asText()).isEqualTo("RESOURCE_EXHAUSTED");
      assertThat(status.get("message").asText())
          .contains(
              "Quota exceeded for metric:"
                  + " generativelanguage.googleapis.com/generate_content_input_token_count,"
                  + " limit: 1, model: gemini-2.0-flash");
      JsonNode violation = status.get("details").get(1).get("violations").get(0);
      assertThat(status.get("details").get(1).get("@type").asText())
          .isEqualTo("type.googleapis.com/google.rpc.QuotaFailure");
      assertThat(violation.get("quotaId").asText())
          .isEqualTo("GenerateContentInputTokensPerModelPerDay");
      assertThat(violation.get("quotaDimensions").get("model").asText())
          .isEqualTo("gemini-2.0-flash");
      assertThat(violation.get("quotaValue").asText()).isEqualTo("1");
      assertThat(status.get("details").get(2).get("retryDelay").asText()).isEqualTo("7200s");

      Http.Answer bedrock = http.post("/model/amazon.nova-lite-v1:0/converse", BEDROCK);
      assertThat(bedrock.status()).isEqualTo(429);
      assertThat(bedrock.header("x-amzn-ErrorType")).startsWith("ThrottlingException:");
      assertThat(bedrock.body().get("message").asText())
          .isEqualTo("Too many tokens per day, please wait before trying again.");

      Http.Answer azure = http.post(AZURE, Http.chat("a", null));
      assertThat(azure.status()).isEqualTo(403);
      assertThat(azure.body().get("statusCode").asInt()).isEqualTo(403);
      assertThat(azure.body().get("message").asText())
          .isEqualTo("Token quota is exceeded. Try again in 2 hours.");
      assertThat(azure.header("retry-after")).isEqualTo("7200");
    }
  }

  /**
   * The gate's parser reads every dialect's answer as a stop, never as a slow down: the per-minute
   * caps are not what was hit. Where the answer says when the day ends (OpenAI's retry-after,
   * Anthropic's message), that is the stop's end.
   */
  @Test
  void everyDialectsAnswerParsesAsAStopUntilTheNextDay() throws Exception {
    SteppedClock clock = new SteppedClock(LATE);
    try (MockProvider provider =
        MockProvider.start(config(clock, DailyCaps.utc(null, 1L)).build())) {
      Http http = new Http(provider);
      ProviderSignal openAi = parse(http.post("/v1/chat/completions", Http.chat("a", null)));
      ProviderSignal anthropic = parse(http.post("/v1/messages", ANTHROPIC));
      ProviderSignal gemini =
          parse(http.post("/v1beta/models/gemini-2.0-flash:generateContent", GEMINI));
      ProviderSignal bedrock = parse(http.post("/model/amazon.nova-lite-v1:0/converse", BEDROCK));
      ProviderSignal azure = parse(http.post(AZURE, Http.chat("a", null)));

      for (ProviderSignal stop : List.of(openAi, anthropic, gemini, bedrock, azure)) {
        assertThat(stop.meaning()).isEqualTo(ProviderSignal.Meaning.STOP_UNTIL_RESET);
        assertThat(stop.rateLimited()).isFalse();
        assertThat(stop.ignored()).isZero();
      }
      assertThat(openAi.exhausted()).containsExactly("tokens");
      assertThat(openAi.retryAfter()).isEqualTo(Duration.ofHours(2));
      assertThat(anthropic.retryAfter()).isEqualTo(Duration.ofHours(2));
      assertThat(bedrock.exhausted()).containsExactly("tokens");
      assertThat(gemini.exhausted()).containsExactly("input_tokens");
      assertThat(azure.exhausted()).containsExactly("tokens");
      assertThat(azure.retryAfter()).isEqualTo(Duration.ofHours(2));
    }
  }

  @Test
  void theControlEndpointShowsAndChangesTheCapsPerDay() throws Exception {
    SteppedClock clock = new SteppedClock(LATE);
    try (MockProvider provider =
        MockProvider.start(config(clock, DailyCaps.utc(1L, null)).build())) {
      Http http = new Http(provider);
      assertThat(http.post("/v1/chat/completions", Http.chat("a", null)).status()).isEqualTo(200);
      assertThat(http.post("/v1/chat/completions", Http.chat("a", null)).status()).isEqualTo(429);

      JsonNode caps = http.get("/admin/caps").body();
      assertThat(caps.get("requests_per_day").asLong()).isEqualTo(1);
      assertThat(caps.get("tokens_per_day").isNull()).isTrue();
      assertThat(caps.get("day_zone").asText()).isEqualTo("UTC");

      Http.Answer raised = http.post("/admin/caps", "{\"requests_per_day\": 2}");
      assertThat(raised.status()).isEqualTo(200);
      assertThat(raised.body().get("requests_per_day").asLong()).isEqualTo(2);
      assertThat(http.post("/v1/chat/completions", Http.chat("a", null)).status())
          .as("the day's one call stays counted")
          .isEqualTo(200);
      assertThat(http.post("/v1/chat/completions", Http.chat("a", null)).status()).isEqualTo(429);

      Http.Answer bad = http.post("/admin/caps", "{\"requests_per_day\": 0}");
      assertThat(bad.status()).isEqualTo(400);
      assertThat(bad.body().get("error").get("message").asText())
          .contains("requests_per_day must be in the range [1, ");
      assertThat(http.post("/admin/caps", "{\"tokens_per_day\": 1.5}").status()).isEqualTo(400);

      assertThat(http.post("/admin/caps", "{\"requests_per_day\": null}").status()).isEqualTo(200);
      assertThat(provider.dailyCaps()).isEqualTo(DailyCaps.NONE);
      assertThat(http.post("/v1/chat/completions", Http.chat("a", null)).status()).isEqualTo(200);
    }
  }

  @Test
  void capsOutOfRangeAreRefusedNamingTheField() {
    assertThatThrownBy(() -> DailyCaps.utc(0L, null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("requests_per_day must be in the range [1, ");
    assertThatThrownBy(() -> DailyCaps.utc(null, -1L))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("tokens_per_day must be in the range [1, ");
  }

  private static ProviderSignal parse(Http.Answer answer) {
    return ProviderSignals.parse(
        answer.status(), answer.headers().map(), answer.body().toString(), LATE);
  }
}
