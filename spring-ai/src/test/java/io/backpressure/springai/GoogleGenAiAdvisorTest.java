package io.backpressure.springai;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.genai.Client;
import com.google.genai.types.HttpOptions;
import com.google.genai.types.HttpRetryOptions;
import io.backpressure.client.DeferredException;
import io.backpressure.client.RateLimits;
import io.backpressure.client.test.MockAnswers;
import io.backpressure.client.test.TestGates;
import io.backpressure.core.ManualClock;
import io.backpressure.core.testing.RecordingGate;
import io.backpressure.mock.MockProvider;
import io.backpressure.mock.RequestRecord;
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
  private final RecordingGate gate = TestGates.recording("gemini/my-project", 100, 100_000, clock);

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
    try (MockProvider provider = MockProvider.start(MockAnswers.atOnce(30).build())) {
      assertThat(ask(chat(provider))).isNotEmpty();

      RequestRecord record = TestGates.assertReleasedAsCounted(gate, provider);
      assertThat(record.completionTokens()).isEqualTo(30);
      assertThat(gate.requests())
          .singleElement()
          .satisfies(request -> assertThat(request.maxTokens()).isEqualTo(50L));
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
    try (MockProvider provider =
        MockProvider.start(MockAnswers.oneRequestPer(Duration.ofMinutes(10)))) {
      ChatClient chat = chat(provider);

      ask(chat);
      assertThatThrownBy(() -> ask(chat)).isInstanceOf(DeferredException.class);

      TestGates.assertThe429Heard(gate, provider);
      assertThat(gate.signals().get(0).retryAfter()).isEqualTo(RateLimits.ASSUMED_RETRY_AFTER);
    }
  }
}
