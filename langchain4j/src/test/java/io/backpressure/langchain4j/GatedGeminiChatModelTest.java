package io.backpressure.langchain4j;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.model.googleai.GoogleAiGeminiChatModel;
import io.backpressure.client.DeferredException;
import io.backpressure.client.GateContext;
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

/**
 * LangChain4j's own Gemini model ({@code langchain4j-google-ai-gemini}), wrapped by {@link
 * GatedChatModel}, against the mock provider's Gemini API dialect; gate time is virtual.
 */
class GatedGeminiChatModelTest {
  private static final String PROMPT = "x".repeat(400);

  private final RecordingGate gate =
      new RecordingGate(
          InMemoryGate.create(
              Policy.builder("gemini/my-project")
                  .requestsPerSecond(10)
                  .tokensPerSecond(10_000)
                  .priority("P1", 1)
                  .build(),
              new ManualClock()));

  private static ChatModel gemini(MockProvider provider) {
    return GoogleAiGeminiChatModel.builder()
        .baseUrl(provider.url() + "/v1beta")
        .apiKey("test-key")
        .modelName("gemini-2.5-flash")
        .maxOutputTokens(50)
        .maxRetries(0)
        .timeout(Duration.ofSeconds(20))
        .build();
  }

  @Test
  void admitsBeforeTheCallAndReleasesWithTheUsageMetadata() throws Exception {
    MockProviderConfig config =
        MockProviderConfig.builder()
            .latencyMs(0, 0)
            .completionTokens(new CompletionTokens.Fixed(30))
            .build();
    try (MockProvider provider = MockProvider.start(config)) {
      ChatModel model = GatedChatModel.builder(gemini(provider), gate).build();

      String answer = GateContext.of("acme", "P1").call(() -> model.chat(PROMPT));

      assertThat(answer).isNotEmpty();
      RequestRecord record = provider.records().get(0);
      assertThat(record.status()).isEqualTo(200);
      assertThat(record.completionTokens()).isEqualTo(30);
      assertThat(gate.requests())
          .singleElement()
          .satisfies(
              request -> {
                assertThat(request.tenant()).isEqualTo("acme");
                assertThat(request.maxTokens()).isEqualTo(50L);
              });
      assertThat(gate.releasedWith())
          .containsExactly(
              Cost.requests(1).tokens(record.promptTokens() + record.completionTokens()));
    }
  }

  /**
   * The Gemini API's 429 {@code RESOURCE_EXHAUSTED}, which LangChain4j throws as its {@code
   * RateLimitException}: sent once (no retries of the model's own), heard by the gate as a 429, and
   * the caller's next call is deferred without reaching the provider.
   */
  @Test
  void a429IsSentOnceHeardByTheGateAndTheNextCallDeferred() throws Exception {
    MockProviderConfig config =
        MockProviderConfig.builder()
            .latencyMs(0, 0)
            .requests(LimitSpec.of(WindowModel.FIXED, 1, Duration.ofMinutes(10)))
            .build();
    try (MockProvider provider = MockProvider.start(config)) {
      ChatModel model =
          GatedChatModel.builder(gemini(provider), gate)
              .defaultContext(GateContext.of("acme", "P1"))
              .build();

      model.chat("first");
      assertThatThrownBy(() -> model.chat("second")).isInstanceOf(DeferredException.class);

      assertThat(provider.records()).extracting(RequestRecord::status).containsExactly(200, 429);
      assertThat(gate.signals())
          .singleElement()
          .satisfies(s -> assertThat(s.status()).isEqualTo(429));
      assertThat(gate.releases()).hasSize(2);
      assertThat(gate.outstanding()).isZero();
    }
  }
}
