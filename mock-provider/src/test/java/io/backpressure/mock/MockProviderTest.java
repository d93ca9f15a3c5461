package io.backpressure.mock;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.backpressure.mock.limit.LimitSpec;
import io.backpressure.mock.limit.WindowModel;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class MockProviderTest {

  private static final long MS = 1_000_000L;

  private static MockProviderConfig.Builder instant() {
    return MockProviderConfig.builder().latencyMs(0, 0);
  }

  @Test
  void answersAChatCompletionWithUsageAndRateLimitHeadersAndRecordsIt() throws Exception {
    MockProviderConfig config =
        instant()
            .requests(LimitSpec.of(WindowModel.FIXED, 60, Duration.ofMinutes(1)))
            .tokens(LimitSpec.of(WindowModel.FIXED, 10_000, Duration.ofMinutes(1)))
            .completionTokens(new CompletionTokens.Fixed(30))
            .build();
    try (MockProvider provider = MockProvider.start(config)) {
      Http http = new Http(provider);
      Http.Answer answer =
          http.post(
              "/v1/chat/completions",
              Http.chat("a".repeat(40), null),
              "x-tenant",
              "acme",
              "x-priority",
              "P1",
              "x-call-id",
              "call-7");

      assertThat(answer.status()).isEqualTo(200);
      JsonNode body = answer.body();
      assertThat(body.path("object").asText()).isEqualTo("chat.completion");
      assertThat(body.path("model").asText()).isEqualTo("gpt-4o-mini");
      assertThat(body.path("choices").get(0).path("finish_reason").asText()).isEqualTo("stop");
      assertThat(body.path("choices").get(0).path("message").path("content").asText()).hasSize(120);
      assertThat(body.path("usage").path("prompt_tokens").asLong()).isEqualTo(10);
      assertThat(body.path("usage").path("completion_tokens").asLong()).isEqualTo(30);
      assertThat(body.path("usage").path("total_tokens").asLong()).isEqualTo(40);
      assertThat(answer.header("x-ratelimit-limit-requests")).isEqualTo("60");
      assertThat(answer.header("x-ratelimit-remaining-requests")).isEqualTo("59");
      assertThat(answer.header("x-ratelimit-limit-tokens")).isEqualTo("10000");
      assertThat(answer.header("x-ratelimit-remaining-tokens")).isEqualTo("9960");
      assertThat(answer.header("x-ratelimit-reset-requests")).matches("(\\d+m)?[\\d.]+s");
      assertThat(answer.header("retry-after")).isNull();

      RequestRecord record = provider.records().get(0);
      assertThat(record.seq()).isZero();
      assertThat(record.tenant()).isEqualTo("acme");
      assertThat(record.priority()).isEqualTo("P1");
      assertThat(record.callId()).isEqualTo("call-7");
      assertThat(record.status()).isEqualTo(200);
      assertThat(record.boundDimension()).isNull();
      assertThat(record.promptTokens()).isEqualTo(10);
      assertThat(record.completionTokens()).isEqualTo(30);
      assertThat(record.chargedTokens()).isEqualTo(40);
      assertThat(record.finishNanos()).isGreaterThanOrEqualTo(record.arrivalNanos());
      assertThat(record.arrivalNanos()).isLessThanOrEqualTo(provider.nanosSinceStart());
    }
  }

  @Test
  void rateLimitedCallsGet429WithOpenAiHeadersAndABodyNamingTheRequestsDimension()
      throws Exception {
    MockProviderConfig config =
        instant().requests(LimitSpec.of(WindowModel.FIXED, 2, Duration.ofMinutes(10))).build();
    try (MockProvider provider = MockProvider.start(config)) {
      Http http = new Http(provider);
      assertThat(http.post("/v1/chat/completions", Http.chat("hi", 5)).status()).isEqualTo(200);
      assertThat(http.post("/v1/chat/completions", Http.chat("hi", 5)).status()).isEqualTo(200);

      Http.Answer limited =
          http.post("/v1/chat/completions", Http.chat("hi", 5), "x-tenant", "noisy");

      assertThat(limited.status()).isEqualTo(429);
      JsonNode error = limited.body().path("error");
      assertThat(error.path("type").asText()).isEqualTo("requests");
      assertThat(error.path("code").asText()).isEqualTo("rate_limit_exceeded");
      assertThat(error.path("message").asText())
          .startsWith("Rate limit reached for gpt-4o-mini on requests per 10m0s: Limit 2");
      long retryAfterMs = Long.parseLong(limited.header("retry-after-ms"));
      assertThat(retryAfterMs).isBetween(1L, 600_000L);
      assertThat(Long.parseLong(limited.header("retry-after")))
          .isEqualTo((retryAfterMs + 999) / 1000);
      assertThat(limited.header("x-ratelimit-limit-requests")).isEqualTo("2");
      assertThat(limited.header("x-ratelimit-remaining-requests")).isEqualTo("0");
      assertThat(limited.header("x-ratelimit-reset-requests")).matches("\\d+m[\\d.]+s");
      assertThat(limited.header("x-ratelimit-limit-tokens")).isNull();

      RequestRecord record = provider.records().get(2);
      assertThat(record.status()).isEqualTo(429);
      assertThat(record.tenant()).isEqualTo("noisy");
      assertThat(record.boundDimension()).isEqualTo("requests");
      assertThat(record.retryAfterNanos()).isPositive();
      assertThat((record.retryAfterNanos() + MS - 1) / MS).isEqualTo(retryAfterMs);
      assertThat(provider.summary().rateLimitedRequests()).isEqualTo(1);
    }
  }

  @Test
  void theTokensDimensionBindsOnItsOwnAndIsNamed() throws Exception {
    MockProviderConfig config =
        instant()
            .requests(LimitSpec.of(WindowModel.FIXED, 100, Duration.ofMinutes(10)))
            .tokens(LimitSpec.of(WindowModel.FIXED, 100, Duration.ofMinutes(10)))
            .completionTokens(new CompletionTokens.Fixed(50))
            .build();
    try (MockProvider provider = MockProvider.start(config)) {
      Http http = new Http(provider);
      assertThat(http.post("/v1/chat/completions", Http.chat("x".repeat(40), null)).status())
          .isEqualTo(200);
      Http.Answer limited = http.post("/v1/chat/completions", Http.chat("x".repeat(40), null));

      assertThat(limited.status()).isEqualTo(429);
      assertThat(limited.body().path("error").path("type").asText()).isEqualTo("tokens");
      assertThat(limited.header("x-ratelimit-remaining-tokens")).isEqualTo("40");
      assertThat(limited.header("x-ratelimit-remaining-requests")).isEqualTo("99");
      assertThat(limited.header("retry-after-ms")).isNotNull();
      assertThat(http.post("/v1/chat/completions", Http.chat("y", 1)).status()).isEqualTo(200);
      assertThat(provider.summary().rateLimitedTokens()).isEqualTo(1);
      assertThat(provider.summary().rateLimitedRequests()).isZero();
    }
  }

  @Test
  void aCallLargerThanTheTokenCapIsToldNotToRetry() throws Exception {
    MockProviderConfig config =
        instant()
            .tokens(LimitSpec.perSecond(WindowModel.SLIDING, 100))
            .chargeMode(ChargeMode.MAX_TOKENS)
            .build();
    try (MockProvider provider = MockProvider.start(config)) {
      Http.Answer answer = new Http(provider).post("/v1/chat/completions", Http.chat("hi", 500));

      assertThat(answer.status()).isEqualTo(429);
      assertThat(answer.body().path("error").path("type").asText()).isEqualTo("tokens");
      assertThat(answer.body().path("error").path("message").asText())
          .startsWith(
              "Request too large for gpt-4o-mini on tokens per 1s: Limit 100, Requested 500");
      assertThat(answer.header("x-should-retry")).isEqualTo("false");
      assertThat(answer.header("retry-after")).isNull();
      assertThat(provider.records().get(0).retryAfterNanos()).isEqualTo(-1);
    }
  }

  @Test
  void maxTokensClampsTheCompletionAndTheChargeModeDecidesWhatIsCharged() throws Exception {
    MockProviderConfig actual = instant().completionTokens(new CompletionTokens.Fixed(50)).build();
    try (MockProvider provider = MockProvider.start(actual)) {
      Http.Answer answer =
          new Http(provider).post("/v1/chat/completions", Http.chat("x".repeat(400), 20));
      assertThat(answer.body().path("usage").path("completion_tokens").asLong()).isEqualTo(20);
      assertThat(answer.body().path("choices").get(0).path("finish_reason").asText())
          .isEqualTo("length");
      assertThat(provider.records().get(0).chargedTokens()).isEqualTo(120);
    }
    try (MockProvider provider =
        MockProvider.start(actual.toBuilder().chargeMode(ChargeMode.MAX_TOKENS).build())) {
      Http http = new Http(provider);
      http.post("/v1/chat/completions", Http.chat("x".repeat(400), 20));
      http.post("/v1/chat/completions", Http.chat("x".repeat(40), 300));
      http.post("/v1/chat/completions", Http.chat("x".repeat(40), null));
      assertThat(provider.records())
          .extracting(RequestRecord::chargedTokens)
          .containsExactly(100L, 300L, 10L);
    }
  }

  @Test
  void completionTokensAreDrawnFromTheConfiguredRangeReproduciblyBySeed() throws Exception {
    List<Long> first = drawCompletions(7);
    assertThat(first).allSatisfy(n -> assertThat(n).isBetween(20L, 200L));
    assertThat(first.stream().distinct().count()).isGreaterThan(5);
    assertThat(drawCompletions(7)).isEqualTo(first);
    assertThat(drawCompletions(8)).isNotEqualTo(first);
  }

  private static List<Long> drawCompletions(long seed) throws Exception {
    MockProviderConfig config =
        instant().completionTokens(new CompletionTokens.Uniform(20, 200)).seed(seed).build();
    try (MockProvider provider = MockProvider.start(config)) {
      Http http = new Http(provider);
      List<Long> drawn = new ArrayList<>();
      for (int i = 0; i < 20; i++) {
        drawn.add(
            http.post("/v1/chat/completions", Http.chat("hi", null))
                .body()
                .path("usage")
                .path("completion_tokens")
                .asLong());
      }
      return drawn;
    }
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "{not json",
        "[1,2]",
        "",
        "{\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}",
        "{\"model\":\"m\"}",
        "{\"model\":\"m\",\"messages\":[]}",
        "{\"model\":\"m\",\"messages\":\"hi\"}",
        "{\"model\":\"m\",\"messages\":[{\"content\":\"hi\"}]}",
        "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":5}]}",
        "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}],\"max_tokens\":-5}",
        "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}],\"max_tokens\":0}",
        "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}],\"max_tokens\":1e12}",
        "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}],"
            + "\"max_tokens\":99999999999}",
        "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}],\"max_tokens\":\"9\"}",
        "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}],\"stream\":\"yes\"}",
        "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}],"
            + "\"stream_options\":{\"include_usage\":true}}",
        "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}],"
            + "\"stream\":true,\"stream_options\":{\"include_usage\":1}}"
      })
  void badInputGets400InOpenAiShapeAndTheServerKeepsServing(String body) throws Exception {
    try (MockProvider provider = MockProvider.start(instant().build())) {
      Http http = new Http(provider);
      Http.Answer answer = http.post("/v1/chat/completions", body, "x-tenant", "careless");

      assertThat(answer.status()).isEqualTo(400);
      JsonNode error = answer.body().path("error");
      assertThat(error.path("type").asText()).isEqualTo("invalid_request_error");
      assertThat(error.path("message").asText()).isNotBlank();
      assertThat(error.has("param")).isTrue();
      assertThat(error.has("code")).isTrue();
      assertThat(http.post("/v1/chat/completions", Http.chat("hi", 3)).status()).isEqualTo(200);
      assertThat(provider.records()).extracting(RequestRecord::status).containsExactly(400, 200);
      assertThat(provider.records().get(0).tenant()).isEqualTo("careless");
      assertThat(provider.summary().badRequests()).isEqualTo(1);
    }
  }

  @Test
  void badRequestMessagesNameTheFieldAndTheAllowedRange() throws Exception {
    try (MockProvider provider = MockProvider.start(instant().build())) {
      Http http = new Http(provider);
      JsonNode negative =
          http.post("/v1/chat/completions", Http.chat("hi", -5)).body().path("error");
      assertThat(negative.path("param").asText()).isEqualTo("max_tokens");
      assertThat(negative.path("message").asText())
          .isEqualTo(
              "Invalid 'max_tokens': integer below minimum value. Expected a value >= 1, but got"
                  + " -5 instead.");
      JsonNode missing =
          http.post("/v1/chat/completions", "{\"messages\":[]}").body().path("error");
      assertThat(missing.path("message").asText())
          .isEqualTo("Missing required parameter: 'model'.");
      assertThat(missing.path("code").asText()).isEqualTo("missing_required_parameter");
    }
  }

  @Test
  void anOversizedBodyGets413AndTheServerKeepsServing() throws Exception {
    try (MockProvider provider = MockProvider.start(instant().build())) {
      Http http = new Http(provider);
      String huge = Http.chat("x".repeat(2 * 1024 * 1024), 5);

      Http.Answer answer = http.post("/v1/chat/completions", huge);

      assertThat(answer.status()).isEqualTo(413);
      assertThat(answer.body().path("error").path("message").asText())
          .isEqualTo("Request body too large: the limit is 1048576 bytes.");
      assertThat(http.post("/v1/chat/completions", Http.chat("hi", 3)).status()).isEqualTo(200);
    }
  }

  @Test
  void unknownPathsAndWrongMethodsAreAnsweredInOpenAiShape() throws Exception {
    try (MockProvider provider = MockProvider.start(instant().build())) {
      Http http = new Http(provider);
      Http.Answer unknown = http.post("/v1/embeddings", "{}");
      assertThat(unknown.status()).isEqualTo(404);
      assertThat(unknown.body().path("error").path("code").asText()).isEqualTo("unknown_url");
      assertThat(http.post("/v1/chat/completions/extra", "{}").status()).isEqualTo(404);
      Http.Answer wrongMethod = http.get("/v1/chat/completions");
      assertThat(wrongMethod.status()).isEqualTo(405);
      assertThat(wrongMethod.headers().firstValue("allow")).hasValue("POST");
      assertThat(http.send("DELETE", "/metrics/summary").status()).isEqualTo(405);
      assertThat(provider.records()).isEmpty();
    }
  }

  @Test
  void recordsSummaryAndHealthAreServedAsJson() throws Exception {
    MockProviderConfig config =
        instant()
            .requests(LimitSpec.of(WindowModel.FIXED, 2, Duration.ofMinutes(10)))
            .completionTokens(new CompletionTokens.Fixed(7))
            .build();
    try (MockProvider provider = MockProvider.start(config)) {
      Http http = new Http(provider);
      http.post("/v1/chat/completions", Http.chat("abcd", null), "x-tenant", "a");
      http.post("/v1/chat/completions", Http.chat("abcd", null), "x-tenant", "b");
      http.post("/v1/chat/completions", Http.chat("abcd", null), "x-tenant", "c");
      http.post("/v1/chat/completions", "{}", "x-tenant", "d");

      JsonNode all = http.get("/v1/records").body();
      assertThat(all).hasSize(4);
      assertThat(all.get(2).path("status").asInt()).isEqualTo(429);
      assertThat(all.get(2).path("bound_dimension").asText()).isEqualTo("requests");
      assertThat(all.get(0).path("completion_tokens").asInt()).isEqualTo(7);
      assertThat(all.get(0).has("arrival_nanos")).isTrue();
      assertThat(all.get(0).has("call_id")).isTrue();
      JsonNode since = http.get("/v1/records?since=2").body();
      assertThat(since).hasSize(2);
      assertThat(since.get(0).path("seq").asLong()).isEqualTo(2);
      assertThat(since.get(0).path("tenant").asText()).isEqualTo("c");
      assertThat(http.get("/v1/records?since=99").body()).isEmpty();
      assertThat(http.get("/v1/records?since=-1").status()).isEqualTo(400);
      assertThat(http.get("/v1/records?from=1").status()).isEqualTo(400);

      JsonNode summary = http.get("/metrics/summary").body();
      assertThat(summary.path("requests").asLong()).isEqualTo(4);
      assertThat(summary.path("ok").asLong()).isEqualTo(2);
      assertThat(summary.path("rate_limited").path("requests").asLong()).isEqualTo(1);
      assertThat(summary.path("rate_limited").path("tokens").asLong()).isZero();
      assertThat(summary.path("bad_request").asLong()).isEqualTo(1);
      assertThat(summary.path("tokens").path("prompt").asLong()).isEqualTo(2);
      assertThat(summary.path("tokens").path("completion").asLong()).isEqualTo(14);
      assertThat(http.get("/health").body().path("status").asText()).isEqualTo("ok");
    }
  }

  @Test
  void recordsBeyondTheRetentionLimitAreDroppedOldestFirstWithoutRenumbering() throws Exception {
    try (MockProvider provider = MockProvider.start(instant().maxRecords(4).build())) {
      Http http = new Http(provider);
      for (int i = 0; i < 9; i++) {
        http.post("/v1/chat/completions", Http.chat("hi", null), "x-call-id", "c" + i);
      }
      List<RequestRecord> kept = provider.records();
      assertThat(kept.size()).isBetween(1, 4);
      assertThat(kept.get(kept.size() - 1).seq()).isEqualTo(8);
      assertThat(kept.get(kept.size() - 1).callId()).isEqualTo("c8");
      assertThat(provider.records(7)).extracting(RequestRecord::seq).containsExactly(7L, 8L);
      assertThat(provider.summary().ok()).isEqualTo(9);
    }
  }

  @Test
  void rejectedCallsCountAgainstTheWindowWhenConfigured() throws Exception {
    for (boolean rejectedCount : new boolean[] {false, true}) {
      MockProviderConfig config =
          instant()
              .requests(LimitSpec.of(WindowModel.SLIDING, 1, Duration.ofMinutes(10)))
              .rejectedCount(rejectedCount)
              .build();
      try (MockProvider provider = MockProvider.start(config)) {
        Http http = new Http(provider);
        http.post("/v1/chat/completions", Http.chat("hi", 1));
        Thread.sleep(20);
        long retryAfterMs =
            Long.parseLong(
                http.post("/v1/chat/completions", Http.chat("hi", 1)).header("retry-after-ms"));
        if (rejectedCount) {
          // The 429 itself now sits in the window: it must expire, a full period from now.
          assertThat(retryAfterMs).isEqualTo(600_000);
        } else {
          assertThat(retryAfterMs).isLessThan(600_000 - 19);
        }
      }
    }
  }

  @Test
  void theAnthropicMessagesEndpointSpeaksItsOwnShapeAgainstTheSameLimits() throws Exception {
    MockProviderConfig config =
        instant()
            .requests(LimitSpec.of(WindowModel.FIXED, 1, Duration.ofMinutes(10)))
            .tokens(LimitSpec.of(WindowModel.FIXED, 1_000, Duration.ofMinutes(10)))
            .completionTokens(new CompletionTokens.Fixed(30))
            .build();
    String body =
        "{\"model\":\"claude-x\",\"max_tokens\":10,\"system\":\"abcd\","
            + "\"messages\":[{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"abcdefgh\"}]}]}";
    try (MockProvider provider = MockProvider.start(config)) {
      Http http = new Http(provider);
      Http.Answer ok = http.post("/v1/messages", body);
      assertThat(ok.status()).isEqualTo(200);
      assertThat(ok.body().path("type").asText()).isEqualTo("message");
      assertThat(ok.body().path("stop_reason").asText()).isEqualTo("max_tokens");
      assertThat(ok.body().path("usage").path("input_tokens").asLong()).isEqualTo(3);
      assertThat(ok.body().path("usage").path("output_tokens").asLong()).isEqualTo(10);
      assertThat(ok.header("anthropic-ratelimit-requests-limit")).isEqualTo("1");
      assertThat(ok.header("anthropic-ratelimit-requests-remaining")).isEqualTo("0");
      assertThat(ok.header("anthropic-ratelimit-tokens-remaining")).isEqualTo("987");
      assertThat(ok.header("anthropic-ratelimit-tokens-reset")).endsWith("Z");

      Http.Answer limited = http.post("/v1/messages", body);
      assertThat(limited.status()).isEqualTo(429);
      assertThat(limited.body().path("error").path("type").asText()).isEqualTo("rate_limit_error");
      assertThat(limited.body().path("error").path("message").asText()).contains("on requests per");
      assertThat(limited.header("retry-after")).isNotNull();
      assertThat(limited.header("retry-after-ms")).isNull();
      assertThat(http.post("/v1/chat/completions", Http.chat("hi", 1)).status()).isEqualTo(429);

      Http.Answer noMax =
          http.post(
              "/v1/messages",
              "{\"model\":\"claude-x\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}");
      assertThat(noMax.status()).isEqualTo(400);
      assertThat(noMax.body().path("type").asText()).isEqualTo("error");
      assertThat(noMax.body().path("error").path("message").asText())
          .isEqualTo("Missing required parameter: 'max_tokens'.");
    }
  }

  @Test
  void aStreamedAnswerIsServerSentEventsInOpenAiChunkShape() throws Exception {
    MockProviderConfig config =
        instant()
            .requests(LimitSpec.of(WindowModel.FIXED, 5, Duration.ofMinutes(1)))
            .completionTokens(new CompletionTokens.Fixed(3))
            .build();
    try (MockProvider provider = MockProvider.start(config)) {
      String body =
          "{\"model\":\"gpt-4o-mini\",\"stream\":true,"
              + "\"stream_options\":{\"include_usage\":true},"
              + "\"messages\":[{\"role\":\"user\",\"content\":\"abcdefgh\"}]}";
      HttpResponse<Stream<String>> response =
          HttpClient.newHttpClient()
              .send(
                  HttpRequest.newBuilder(URI.create(provider.baseUrl() + "/chat/completions"))
                      .POST(HttpRequest.BodyPublishers.ofString(body))
                      .build(),
                  HttpResponse.BodyHandlers.ofLines());

      assertThat(response.statusCode()).isEqualTo(200);
      assertThat(response.headers().firstValue("content-type"))
          .hasValue("text/event-stream; charset=utf-8");
      assertThat(response.headers().firstValue("x-ratelimit-remaining-requests")).hasValue("4");
      List<String> lines = response.body().toList();
      List<String> data = lines.stream().filter(l -> !l.isEmpty()).toList();
      assertThat(lines.stream().filter(String::isEmpty).count()).isEqualTo(data.size());
      assertThat(data).allSatisfy(l -> assertThat(l).startsWith("data: "));
      assertThat(data.get(data.size() - 1)).isEqualTo("data: [DONE]");
      List<JsonNode> chunks = new ArrayList<>();
      for (String line : data.subList(0, data.size() - 1)) {
        chunks.add(Http.JSON.readTree(line.substring("data: ".length())));
      }
      assertThat(chunks)
          .allSatisfy(
              c -> assertThat(c.path("object").asText()).isEqualTo("chat.completion.chunk"));
      assertThat(chunks.get(0).path("choices").get(0).path("delta").path("role").asText())
          .isEqualTo("assistant");
      StringBuilder text = new StringBuilder();
      for (JsonNode chunk : chunks.subList(1, chunks.size() - 2)) {
        text.append(chunk.path("choices").get(0).path("delta").path("content").asText());
      }
      assertThat(text.toString()).isEqualTo(Dialect.completionText(3));
      JsonNode finish = chunks.get(chunks.size() - 2);
      assertThat(finish.path("choices").get(0).path("finish_reason").asText()).isEqualTo("stop");
      assertThat(finish.path("usage").isNull()).isTrue();
      JsonNode usage = chunks.get(chunks.size() - 1).path("usage");
      assertThat(usage.path("prompt_tokens").asLong()).isEqualTo(2);
      assertThat(usage.path("completion_tokens").asLong()).isEqualTo(3);
      assertThat(provider.records()).extracting(RequestRecord::status).containsExactly(200);
    }
  }
}
