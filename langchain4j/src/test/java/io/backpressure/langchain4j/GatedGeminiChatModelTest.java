package io.backpressure.langchain4j;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.model.googleai.GoogleAiGeminiChatModel;
import io.backpressure.client.DeferredException;
import io.backpressure.client.GateContext;
import io.backpressure.client.test.MockAnswers;
import io.backpressure.client.test.TestGates;
import io.backpressure.core.ManualClock;
import io.backpressure.core.testing.RecordingGate;
import io.backpressure.mock.MockProvider;
import io.backpressure.mock.RequestRecord;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * LangChain4j's own Gemini model ({@code langchain4j-google-ai-gemini}), wrapped by {@link
 * GatedChatModel}, against the mock provider's Gemini API dialect; gate time is virtual.
 */
class GatedGeminiChatModelTest {
  private static final String PROMPT = "x".repeat(400);

  private final RecordingGate gate =
      TestGates.recording("gemini/my-project", 10, 10_000, new ManualClock());

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
    try (MockProvider provider = MockProvider.start(MockAnswers.atOnce(30).build())) {
      ChatModel model = GatedChatModel.builder(gemini(provider), gate).build();

      String answer = GateContext.of("acme", "P1").call(() -> model.chat(PROMPT));

      assertThat(answer).isNotEmpty();
      RequestRecord record = TestGates.assertReleasedAsCounted(gate, provider);
      assertThat(record.completionTokens()).isEqualTo(30);
      assertThat(gate.requests())
          .singleElement()
          .satisfies(
              request -> {
                assertThat(request.tenant()).isEqualTo("acme");
                assertThat(request.maxTokens()).isEqualTo(50L);
              });
    }
  }

  /**
   * The Gemini API's 429 {@code RESOURCE_EXHAUSTED}, which LangChain4j throws as its {@code
   * RateLimitException}: sent once (no retries of the model's own), heard by the gate as a 429, and
   * the caller's next call is deferred without reaching the provider.
   */
  @Test
  void a429IsSentOnceHeardByTheGateAndTheNextCallDeferred() throws Exception {
    try (MockProvider provider =
        MockProvider.start(MockAnswers.oneRequestPer(Duration.ofMinutes(10)))) {
      ChatModel model =
          GatedChatModel.builder(gemini(provider), gate)
              .defaultContext(GateContext.of("acme", "P1"))
              .build();

      model.chat("first");
      assertThatThrownBy(() -> model.chat("second")).isInstanceOf(DeferredException.class);

      TestGates.assertThe429Heard(gate, provider);
    }
  }
}
