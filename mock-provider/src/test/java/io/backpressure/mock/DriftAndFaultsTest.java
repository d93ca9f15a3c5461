package io.backpressure.mock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import io.backpressure.mock.limit.CapSchedule;
import io.backpressure.mock.limit.Caps;
import io.backpressure.mock.limit.LimitSpec;
import io.backpressure.mock.limit.OutsideTraffic;
import io.backpressure.mock.limit.WindowModel;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Caps changed while running, outside traffic, and injected errors and slowness, over HTTP. */
class DriftAndFaultsTest {

  private static final String CHAT = Http.chat("hi", 3);

  private static MockProviderConfig.Builder tenPerTenMinutes() {
    return MockProviderConfig.builder()
        .latencyMs(0, 0)
        .requests(LimitSpec.of(WindowModel.FIXED, 10, Duration.ofMinutes(10)))
        .tokens(LimitSpec.of(WindowModel.FIXED, 6_000, Duration.ofMinutes(10)));
  }

  @Test
  void capsSetLiveTakeEffectAtTheNextCallAndShowInTheHeaders() throws Exception {
    try (MockProvider provider = MockProvider.start(tenPerTenMinutes().build())) {
      Http http = new Http(provider);
      assertThat(http.post("/v1/chat/completions", CHAT).status()).isEqualTo(200);

      Http.Answer set = http.post("/admin/caps", "{\"requests_per_s\": 0.005}");

      assertThat(set.status()).isEqualTo(200);
      assertThat(set.body().path("requests_per_s").asDouble()).isEqualTo(0.005);
      assertThat(set.body().path("tokens_per_s").asDouble()).isEqualTo(10.0);
      Http.Answer second = http.post("/v1/chat/completions", CHAT);
      assertThat(second.status()).isEqualTo(200);
      assertThat(second.header("x-ratelimit-limit-requests")).isEqualTo("3");
      assertThat(second.header("x-ratelimit-remaining-requests")).isEqualTo("1");
      assertThat(http.post("/v1/chat/completions", CHAT).status()).isEqualTo(200);
      Http.Answer refused = http.post("/v1/chat/completions", CHAT);
      assertThat(refused.status()).isEqualTo(429);
      assertThat(refused.body().path("error").path("message").asText()).contains("Limit 3");
      assertThat(http.get("/admin/caps").body().path("requests_per_s").asDouble()).isEqualTo(0.005);
      assertThat(provider.caps()).isEqualTo(new Caps(0.005, 10.0));
    }
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "",
        "[]",
        "{}",
        "{\"requests_per_s\": \"5\"}",
        "{\"requests_per_s\": 5, \"requests_per_s\": 500}",
        "{\"requests_per_s\": -1}",
        "{\"requests_per_s\": 1e300}",
        "{\"requests_per_s\": 0.0001}",
        "{\"rps\": 5}",
        "{\"requests_per_s\": null}"
      })
  void badCapsAreRefusedWith400NamingTheFieldAndChangeNothing(String body) throws Exception {
    try (MockProvider provider = MockProvider.start(tenPerTenMinutes().build())) {
      Http.Answer answer = new Http(provider).post("/admin/caps", body);

      assertThat(answer.status()).isEqualTo(400);
      assertThat(answer.body().path("error").path("message").asText()).isNotBlank();
      assertThat(provider.caps()).isEqualTo(new Caps(1 / 60.0, 10.0));
    }
  }

  @Test
  void capErrorsSayWhatIsAllowed() throws Exception {
    MockProviderConfig requestsOnly =
        MockProviderConfig.builder()
            .latencyMs(0, 0)
            .requests(LimitSpec.perSecond(WindowModel.FIXED, 10))
            .build();
    try (MockProvider provider = MockProvider.start(requestsOnly)) {
      Http http = new Http(provider);
      assertThat(message(http.post("/admin/caps", "{\"tokens_per_s\": 100}")))
          .isEqualTo(
              "tokens_per_s cannot be set: this provider does not cap tokens (start it with a"
                  + " tokens cap to change one)");
      assertThat(message(http.post("/admin/caps", "{\"requests_per_s\": \"5\"}")))
          .isEqualTo("Invalid type for 'requests_per_s': expected a number.");
      assertThat(message(http.post("/admin/caps", "{\"requests_per_s\": 0}")))
          .isEqualTo("requests_per_s must be in the range (0, 1e9], but was: 0.0");
      assertThat(message(http.post("/admin/caps", "{\"requests_per_s\":1,\"requests_per_s\":0}")))
          .startsWith("Invalid JSON body: Duplicate field 'requests_per_s'");
      assertThat(message(http.post("/admin/caps", "{\"rps\": 5}")))
          .startsWith("Unknown field 'rps': expected one or more of");
      assertThat(http.send("DELETE", "/admin/caps").status()).isEqualTo(405);
    }
  }

  private static String message(Http.Answer answer) {
    assertThat(answer.status()).isEqualTo(400);
    return answer.body().path("error").path("message").asText();
  }

  @Test
  void aScheduleStepDueAtTheStartAppliesToTheFirstCall() throws Exception {
    MockProviderConfig config =
        tenPerTenMinutes().schedule(CapSchedule.parse("0:0.00334:-")).build();
    try (MockProvider provider = MockProvider.start(config)) {
      Http http = new Http(provider);
      Http.Answer first = http.post("/v1/chat/completions", CHAT);
      assertThat(first.header("x-ratelimit-limit-requests")).isEqualTo("2.004");
      assertThat(http.post("/v1/chat/completions", CHAT).status()).isEqualTo(200);
      assertThat(http.post("/v1/chat/completions", CHAT).status()).isEqualTo(429);
    }
  }

  @Test
  void aScheduleThatChangesAnUncappedDimensionIsRefusedAtConfiguration() {
    assertThatThrownBy(
            () ->
                MockProviderConfig.builder()
                    .requests(LimitSpec.perSecond(WindowModel.FIXED, 10))
                    .schedule(CapSchedule.parse("5:-:100"))
                    .build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("schedule step 1: tokens_per_s cannot be set");
  }

  @Test
  void outsideTrafficUsesTheCapsWithoutBeingRecorded() throws Exception {
    MockProviderConfig config =
        tenPerTenMinutes().outside(new OutsideTraffic(100_000, 1_000_000)).build();
    try (MockProvider provider = MockProvider.start(config)) {
      Http http = new Http(provider);
      Http.Answer answer = http.post("/v1/chat/completions", CHAT, "x-tenant", "ours");

      // Within a millisecond of the start the outside calls have taken all 10 requests.
      assertThat(answer.status()).isEqualTo(429);
      assertThat(answer.header("x-ratelimit-remaining-requests")).isEqualTo("0");
      assertThat(provider.records())
          .singleElement()
          .satisfies(
              r -> {
                assertThat(r.tenant()).isEqualTo("ours");
                assertThat(r.status()).isEqualTo(429);
              });
      JsonNode summary = http.get("/metrics/summary").body();
      assertThat(summary.path("requests").asLong()).isEqualTo(1);
      assertThat(summary.path("outside").path("admitted").asLong()).isEqualTo(10);
      assertThat(summary.path("outside").path("requests").asLong()).isGreaterThan(10);
    }
  }

  @Test
  void theErrorsFaultAnswers500InEachProvidersShapeAndChargesNothing() throws Exception {
    try (MockProvider provider = MockProvider.start(tenPerTenMinutes().build())) {
      Http http = new Http(provider);
      Http.Answer set = http.post("/admin/faults", "{\"errors\": true}");
      assertThat(set.body().path("errors").asBoolean()).isTrue();
      assertThat(set.body().path("latency_factor").asDouble()).isEqualTo(1.0);

      Http.Answer openAi = http.post("/v1/chat/completions", CHAT);
      Http.Answer anthropic =
          http.post(
              "/v1/messages",
              "{\"model\":\"c\",\"max_tokens\":5,"
                  + "\"messages\":[{\"role\":\"user\",\"content\":\"x\"}]}");

      assertThat(openAi.status()).isEqualTo(500);
      assertThat(openAi.body().path("error").path("type").asText()).isEqualTo("server_error");
      assertThat(anthropic.status()).isEqualTo(500);
      assertThat(anthropic.body().path("error").path("type").asText()).isEqualTo("api_error");
      assertThat(http.post("/admin/faults", "{\"errors\": false}").status()).isEqualTo(200);
      Http.Answer ok = http.post("/v1/chat/completions", CHAT);
      assertThat(ok.status()).isEqualTo(200);
      assertThat(ok.header("x-ratelimit-remaining-requests")).isEqualTo("9");
      assertThat(provider.records())
          .extracting(RequestRecord::status)
          .containsExactly(500, 500, 200);
      assertThat(provider.summary().serverErrors()).isEqualTo(2);
      assertThat(http.get("/metrics/summary").body().path("server_error").asLong()).isEqualTo(2);
    }
  }

  private static final String ANTHROPIC =
      "{\"model\":\"c\",\"max_tokens\":5,\"messages\":[{\"role\":\"user\",\"content\":\"x\"}]}";
  private static final String GEMINI = "{\"contents\":[{\"parts\":[{\"text\":\"x\"}]}]}";
  private static final String CONVERSE =
      "{\"messages\":[{\"role\":\"user\",\"content\":[{\"text\":\"x\"}]}]}";

  @Test
  void theOverloadedFaultAnswersEachProvidersOverloadWithoutRateLimitHeadersAndChargesNothing()
      throws Exception {
    try (MockProvider provider = MockProvider.start(tenPerTenMinutes().build())) {
      Http http = new Http(provider);
      Http.Answer set = http.post("/admin/faults", "{\"overloaded\": true}");
      assertThat(set.body().path("overloaded").asBoolean()).isTrue();
      assertThat(set.body().path("errors").asBoolean()).isFalse();
      assertThat(provider.faults()).isEqualTo(new Faults(false, 1, true));

      Http.Answer anthropic = http.post("/v1/messages", ANTHROPIC);
      Http.Answer gemini = http.post("/v1beta/models/gemini-2.0-flash:generateContent", GEMINI);
      Http.Answer bedrock = http.post("/model/anthropic.claude-v2/converse", CONVERSE);
      Http.Answer openAi = http.post("/v1/chat/completions", CHAT);

      assertThat(anthropic.status()).isEqualTo(529);
      assertThat(anthropic.body().toString())
          .isEqualTo(
              "{\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\","
                  + "\"message\":\"Overloaded\"}}");
      assertThat(anthropic.header("retry-after")).isNull();
      assertThat(anthropic.headers().map().keySet())
          .noneMatch(name -> name.startsWith("anthropic-ratelimit-"));
      assertThat(gemini.status()).isEqualTo(503);
      assertThat(gemini.body().path("error").path("status").asText()).isEqualTo("UNAVAILABLE");
      assertThat(bedrock.status()).isEqualTo(503);
      assertThat(bedrock.header("x-amzn-ErrorType")).startsWith("ServiceUnavailableException:");
      assertThat(openAi.status()).isEqualTo(503);
      assertThat(openAi.header("x-ratelimit-remaining-requests")).isNull();

      // overloaded wins over errors; switched off, the caps are whole: nothing was charged
      http.post("/admin/faults", "{\"errors\": true}");
      assertThat(http.post("/v1/messages", ANTHROPIC).status()).isEqualTo(529);
      http.post("/admin/faults", "{\"errors\": false, \"overloaded\": false}");
      Http.Answer ok = http.post("/v1/chat/completions", CHAT);
      assertThat(ok.status()).isEqualTo(200);
      assertThat(ok.header("x-ratelimit-remaining-requests")).isEqualTo("9");
      assertThat(provider.records())
          .extracting(RequestRecord::status)
          .containsExactly(529, 503, 503, 503, 529, 200);
      assertThat(provider.summary().serverErrors()).isEqualTo(5);
    }
  }

  @Test
  void badFaultsAreRefusedAndChangeNothing() throws Exception {
    try (MockProvider provider = MockProvider.start(tenPerTenMinutes().build())) {
      Http http = new Http(provider);
      assertThat(message(http.post("/admin/faults", "{\"errors\": \"yes please\"}")))
          .isEqualTo("Invalid type for 'errors': expected a boolean.");
      assertThat(message(http.post("/admin/faults", "{\"latency_factor\": 0}")))
          .isEqualTo("latency_factor must be in the range (0, 1000], but was: 0.0");
      assertThat(message(http.post("/admin/faults", "{\"errors\": true, \"slow\": 10}")))
          .startsWith("Unknown field 'slow'");
      assertThat(message(http.post("/admin/faults", "{\"overloaded\": 1}")))
          .isEqualTo("Invalid type for 'overloaded': expected a boolean.");
      assertThat(message(http.post("/admin/faults", "{\"rate_limited_mid_stream\": \"on\"}")))
          .isEqualTo("Invalid type for 'rate_limited_mid_stream': expected a boolean.");
      assertThat(provider.faults()).isEqualTo(Faults.NONE);
    }
  }

  @Test
  void theRateLimitedMidStreamFaultIsSwitchedOnAloneAndShown() throws Exception {
    try (MockProvider provider = MockProvider.start(tenPerTenMinutes().build())) {
      Http http = new Http(provider);
      Http.Answer set = http.post("/admin/faults", "{\"rate_limited_mid_stream\": true}");
      assertThat(set.body().path("rate_limited_mid_stream").asBoolean()).isTrue();
      assertThat(provider.faults()).isEqualTo(new Faults(false, 1, false, true));
      // new calls are decided as usual
      assertThat(http.post("/v1/messages", ANTHROPIC).status()).isEqualTo(200);
    }
  }

  @Test
  void theSlowFaultMultipliesTheLatencyOfAdmittedCalls() throws Exception {
    MockProviderConfig config = MockProviderConfig.builder().latencyMs(20, 20).build();
    try (MockProvider provider = MockProvider.start(config)) {
      Http http = new Http(provider);
      http.post("/admin/faults", "{\"latency_factor\": 10}");
      assertThat(http.post("/v1/chat/completions", CHAT).status()).isEqualTo(200);

      RequestRecord record = provider.records().get(0);
      assertThat(record.finishNanos() - record.arrivalNanos()).isGreaterThanOrEqualTo(200_000_000L);
      assertThat(provider.faults()).isEqualTo(new Faults(false, 10));
    }
  }

  @Test
  void theErrorRateAnswersAShareOfCalls500ReproduciblyBySeed() throws Exception {
    MockProviderConfig config = MockProviderConfig.builder().latencyMs(0, 0).errorRate(0.3).build();
    try (MockProvider provider = MockProvider.start(config)) {
      Http http = new Http(provider);
      for (int i = 0; i < 100; i++) {
        http.post("/v1/chat/completions", CHAT);
      }
      long errors = provider.summary().serverErrors();
      assertThat(errors).isBetween(15L, 45L);
      assertThat(provider.summary().ok()).isEqualTo(100 - errors);
    }
    assertThatThrownBy(() -> MockProviderConfig.builder().errorRate(1.5).build())
        .hasMessage("errorRate must be in the range [0, 1], but was: 1.5");
  }
}
