package io.backpressure.mock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.openai.client.OpenAIClient;
import com.openai.client.okhttp.OpenAIOkHttpClient;
import com.openai.errors.RateLimitException;
import com.openai.models.chat.completions.ChatCompletion;
import com.openai.models.chat.completions.ChatCompletionCreateParams;
import io.backpressure.mock.limit.LimitSpec;
import io.backpressure.mock.limit.WindowModel;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The official OpenAI Java client, pointed at the mock, works unchanged. */
class OpenAiClientTest {

  private static final Logger LOG = LoggerFactory.getLogger(OpenAiClientTest.class);

  private static OpenAIClient client(MockProvider provider, int maxRetries) {
    return OpenAIOkHttpClient.builder()
        .baseUrl(provider.baseUrl())
        .apiKey("sk-mock")
        .maxRetries(maxRetries)
        .responseValidation(true)
        .timeout(Duration.ofSeconds(20))
        .putHeader("x-tenant", "sdk-tenant")
        .putHeader("x-priority", "P2")
        .build();
  }

  private static ChatCompletionCreateParams params(String prompt, long maxTokens) {
    return ChatCompletionCreateParams.builder()
        .model("gpt-4o-mini")
        .addUserMessage(prompt)
        .maxCompletionTokens(maxTokens)
        .build();
  }

  @Test
  void getsCompletionsWithUsage() throws Exception {
    MockProviderConfig config =
        MockProviderConfig.builder()
            .latencyMs(0, 0)
            .requests(LimitSpec.perSecond(WindowModel.FIXED, 100))
            .completionTokens(new CompletionTokens.Fixed(25))
            .build();
    try (MockProvider provider = MockProvider.start(config)) {
      OpenAIClient client = client(provider, 0);
      try {
        ChatCompletion completion = client.chat().completions().create(params("x".repeat(100), 10));

        assertThat(completion.model()).isEqualTo("gpt-4o-mini");
        assertThat(completion.choices()).hasSize(1);
        assertThat(completion.choices().get(0).finishReason())
            .isEqualTo(ChatCompletion.Choice.FinishReason.LENGTH);
        assertThat(completion.choices().get(0).message().content())
            .hasValueSatisfying(text -> assertThat(text).hasSize(40));
        assertThat(completion.usage())
            .hasValueSatisfying(
                usage -> {
                  assertThat(usage.promptTokens()).isEqualTo(25);
                  assertThat(usage.completionTokens()).isEqualTo(10);
                  assertThat(usage.totalTokens()).isEqualTo(35);
                });
        RequestRecord record = provider.records().get(0);
        assertThat(record.tenant()).isEqualTo("sdk-tenant");
        assertThat(record.priority()).isEqualTo("P2");
      } finally {
        client.close();
      }
    }
  }

  @Test
  void surfacesSaturationAsItsRateLimitExceptionCarryingOurHeaders() throws Exception {
    MockProviderConfig config =
        MockProviderConfig.builder()
            .latencyMs(0, 0)
            .requests(LimitSpec.of(WindowModel.FIXED, 2, Duration.ofMinutes(10)))
            .tokens(LimitSpec.of(WindowModel.FIXED, 5_000, Duration.ofMinutes(10)))
            .build();
    try (MockProvider provider = MockProvider.start(config)) {
      OpenAIClient client = client(provider, 0);
      try {
        client.chat().completions().create(params("hello", 5));
        client.chat().completions().create(params("hello", 5));

        assertThatThrownBy(() -> client.chat().completions().create(params("hello", 5)))
            .isInstanceOfSatisfying(
                RateLimitException.class,
                e -> {
                  assertThat(e.statusCode()).isEqualTo(429);
                  assertThat(e.type()).hasValue("requests");
                  assertThat(e.code()).hasValue("rate_limit_exceeded");
                  assertThat(e.getMessage()).contains("Rate limit reached for gpt-4o-mini");
                  assertThat(e.headers().values("retry-after-ms"))
                      .singleElement()
                      .satisfies(ms -> assertThat(Long.parseLong(ms)).isPositive());
                  assertThat(e.headers().values("retry-after")).hasSize(1);
                  assertThat(e.headers().values("x-ratelimit-limit-requests")).containsExactly("2");
                  assertThat(e.headers().values("x-ratelimit-remaining-requests"))
                      .containsExactly("0");
                  assertThat(e.headers().values("x-ratelimit-reset-requests")).hasSize(1);
                  assertThat(e.headers().values("x-ratelimit-limit-tokens"))
                      .containsExactly("5000");
                  assertThat(e.headers().values("x-ratelimit-remaining-tokens")).hasSize(1);
                  assertThat(e.headers().values("x-ratelimit-reset-tokens")).hasSize(1);
                });
      } finally {
        client.close();
      }
    }
  }

  @Test
  void namesTheTokensDimensionWhenTokensBind() throws Exception {
    MockProviderConfig config =
        MockProviderConfig.builder()
            .latencyMs(0, 0)
            .tokens(LimitSpec.of(WindowModel.SLIDING, 100, Duration.ofMinutes(10)))
            .completionTokens(new CompletionTokens.Fixed(60))
            .build();
    try (MockProvider provider = MockProvider.start(config)) {
      OpenAIClient client = client(provider, 0);
      try {
        client.chat().completions().create(params("hello", 100));

        assertThatThrownBy(() -> client.chat().completions().create(params("hello", 100)))
            .isInstanceOfSatisfying(
                RateLimitException.class, e -> assertThat(e.type()).hasValue("tokens"));
      } finally {
        client.close();
      }
    }
  }

  @Test
  void builtInRetriesHonourRetryAfterMs() throws Exception {
    MockProviderConfig config =
        MockProviderConfig.builder()
            .latencyMs(0, 0)
            .requests(LimitSpec.of(WindowModel.SLIDING, 1, Duration.ofSeconds(3)))
            .build();
    try (MockProvider provider = MockProvider.start(config)) {
      OpenAIClient client = client(provider, 2);
      try {
        client.chat().completions().create(params("first", 5));
        ChatCompletion retried = client.chat().completions().create(params("second", 5));
        assertThat(retried.usage()).isPresent();
      } finally {
        client.close();
      }
      List<RequestRecord> records = provider.records();
      assertThat(records).extracting(RequestRecord::status).containsExactly(200, 429, 200);
      RequestRecord rejected = records.get(1);
      long gapNanos = records.get(2).arrivalNanos() - rejected.finishNanos();
      LOG.info(
          "openai-java retry gap: advised retry-after {} ms, measured {} ms (answer to retry)",
          String.format("%.1f", rejected.retryAfterNanos() / 1e6),
          String.format("%.1f", gapNanos / 1e6));
      // The SDK's own first backoff is 0.375-0.5 s; the advised wait here is up to 3 s.
      assertThat(rejected.retryAfterNanos()).isGreaterThan(1_000_000_000L);
      assertThat(gapNanos).isGreaterThanOrEqualTo(rejected.retryAfterNanos());
      assertThat(gapNanos).isLessThan(rejected.retryAfterNanos() + 3_000_000_000L);
    }
  }

  @Test
  void doesNotRetryACallThatCanNeverFit() throws Exception {
    MockProviderConfig config =
        MockProviderConfig.builder()
            .latencyMs(0, 0)
            .tokens(LimitSpec.perSecond(WindowModel.FIXED, 100))
            .chargeMode(ChargeMode.MAX_TOKENS)
            .build();
    try (MockProvider provider = MockProvider.start(config)) {
      OpenAIClient client = client(provider, 2);
      try {
        assertThatThrownBy(() -> client.chat().completions().create(params("hello", 1_000)))
            .isInstanceOfSatisfying(
                RateLimitException.class,
                e -> assertThat(e.getMessage()).contains("Request too large"));
      } finally {
        client.close();
      }
      assertThat(provider.records()).hasSize(1);
    }
  }
}
