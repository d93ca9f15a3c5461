package io.backpressure.springai;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.genai.Client;
import com.google.genai.types.HttpOptions;
import com.google.genai.types.HttpRetryOptions;
import io.backpressure.client.DeferredException;
import io.backpressure.client.RateLimits;
import io.backpressure.core.Cost;
import io.backpressure.core.InMemoryGate;
import io.backpressure.core.ManualClock;
import io.backpressure.core.Policy;
import io.backpressure.core.testing.RecordingGate;
import io.backpressure.mock.CompletionTokens;
import io.backpressure.mock.MockProvider;
import io.backpressure.mock.MockProviderConfig;
import io.backpressure.mock.RequestRecord;
import io.backpressure.mock.limit.LimitSpec;
import io.backpressure.mock.limit.WindowModel;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.google.genai.GoogleGenAiChatModel;
import org.springframework.ai.google.genai.GoogleGenAiChatOptions;
import org.springframework.core.retry.RetryPolicy;
import org.springframework.core.retry.RetryTemplate;

/**
 * Spring AI's Google GenAI chat model (google-genai underneath), advised by {@link
 * BackpressureAdvisor}, against the mock provider's Gemini API dialect; gate time is virtual.
 */
class GoogleGenAiAdvisorTest {
  private final ManualClock clock = new ManualClock();
  private final RecordingGate gate =
      new RecordingGate(
          InMemoryGate.create(
              Policy.builder("gemini/my-project")
                  .requestsPerSecond(100)
                  .tokensPerSecond(100_000)
                  .priority("P1", 1)
                  .build(),
              clock));

  private ChatClient chat(MockProvider provider) {
    Client genAi =
        Client.builder()
            .apiKey("test-key")
            .httpOptions(
                HttpOptions.builder()
                    .baseUrl(provider.url())
                    // the client's own retries off: the gate replaces them
                    .retryOptions(HttpRetryOptions.builder().attempts(1).build())
                    .build())
            .build();
    GoogleGenAiChatModel gemini =
        GoogleGenAiChatModel.builder()
            .genAiClient(genAi)
            .options(
                GoogleGenAiChatOptions.builder()
                    .model("gemini-2.5-flash")
                    .maxOutputTokens(50)
                    .build())
            .retryTemplate(new RetryTemplate(RetryPolicy.withMaxRetries(0)))
            .build();
    return ChatClient.builder(gemini)
        .defaultAdvisors(BackpressureAdvisor.builder(gate).build())
        .build();
  }

  private static String ask(ChatClient chat) {
    return chat.prompt("x".repeat(400))
        .advisors(
            a ->
                a.param(BackpressureAdvisor.TENANT, "acme")
                    .param(BackpressureAdvisor.PRIORITY, "P1"))
        .call()
        .content();
  }

  @Test
  void admitsBeforeTheCallAndReleasesWithTheUsageMetadata() throws Exception {
    MockProviderConfig config =
        MockProviderConfig.builder()
            .latencyMs(0, 0)
            .completionTokens(new CompletionTokens.Fixed(30))
            .build();
    try (MockProvider provider = MockProvider.start(config)) {
      assertThat(ask(chat(provider))).isNotEmpty();

      RequestRecord record = provider.records().get(0);
      assertThat(record.status()).isEqualTo(200);
      assertThat(record.completionTokens()).isEqualTo(30);
      assertThat(gate.requests())
          .singleElement()
          .satisfies(request -> assertThat(request.maxTokens()).isEqualTo(50L));
      assertThat(gate.releasedWith())
          .containsExactly(
              Cost.requests(1).tokens(record.promptTokens() + record.completionTokens()));
    }
  }

  /**
   * The Gemini API's 429 {@code RESOURCE_EXHAUSTED}, which google-genai throws as its {@code
   * ClientException} with {@code code()} 429 (a name that says nothing of rate limits): sent once,
   * heard by the gate as a 429 holding the target for {@link RateLimits#ASSUMED_RETRY_AFTER}, and
   * the next call deferred before it reaches the provider.
   */
  @Test
  void a429IsSentOnceHeardByTheGateAndTheNextCallDeferred() throws Exception {
    MockProviderConfig config =
        MockProviderConfig.builder()
            .latencyMs(0, 0)
            .requests(LimitSpec.of(WindowModel.FIXED, 1, Duration.ofMinutes(10)))
            .build();
    try (MockProvider provider = MockProvider.start(config)) {
      ChatClient chat = chat(provider);

      ask(chat);
      assertThatThrownBy(() -> ask(chat)).isInstanceOf(DeferredException.class);

      assertThat(provider.records()).extracting(RequestRecord::status).containsExactly(200, 429);
      assertThat(gate.signals())
          .singleElement()
          .satisfies(
              s -> {
                assertThat(s.status()).isEqualTo(429);
                assertThat(s.retryAfter()).isEqualTo(RateLimits.ASSUMED_RETRY_AFTER);
              });
      assertThat(gate.releases()).hasSize(2);
      assertThat(gate.outstanding()).isZero();
    }
  }
}
