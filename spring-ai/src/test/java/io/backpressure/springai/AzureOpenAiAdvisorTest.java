package io.backpressure.springai;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.openai.azure.AzureOpenAIServiceVersion;
import io.backpressure.client.DeferredException;
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
import org.springframework.ai.chat.model.ChatResponse;
import org.springframework.ai.openai.OpenAiChatModel;
import org.springframework.ai.openai.OpenAiChatOptions;

/**
 * Spring AI's OpenAI chat model in its Azure OpenAI mode ({@code azure(true)}, a deployment, an
 * {@code api-version}, the {@code api-key} credential), advised by {@link BackpressureAdvisor},
 * against the mock provider's Azure OpenAI dialect; gate time is virtual.
 */
class AzureOpenAiAdvisorTest {
  private static final String DEPLOYMENT = "gpt-4o-prod";

  private final RecordingGate gate =
      new RecordingGate(
          InMemoryGate.create(
              Policy.builder("azure/my-resource/" + DEPLOYMENT)
                  .requestsPerSecond(100)
                  .tokensPerSecond(100_000)
                  .priority("P1", 1)
                  .build(),
              new ManualClock()));

  private ChatClient chat(MockProvider provider) {
    OpenAiChatModel azure =
        OpenAiChatModel.builder()
            .options(
                OpenAiChatOptions.builder()
                    .baseUrl(provider.url())
                    .azure(true)
                    .apiKey("azure-test-key")
                    .deploymentName(DEPLOYMENT)
                    .azureOpenAIServiceVersion(AzureOpenAIServiceVersion.fromString("2024-10-21"))
                    .model("gpt-4o")
                    .maxTokens(50)
                    .maxRetries(0)
                    .timeout(Duration.ofSeconds(20))
                    .build())
            .build();
    return ChatClient.builder(azure)
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
  void theDeploymentIsCalledByItsPathAndTheGrantReleasedWithItsUsage() throws Exception {
    MockProviderConfig config =
        MockProviderConfig.builder()
            .latencyMs(0, 0)
            .completionTokens(new CompletionTokens.Fixed(30))
            .build();
    try (MockProvider provider = MockProvider.start(config)) {
      ChatResponse reply =
          chat(provider)
              .prompt("x".repeat(400))
              .advisors(
                  a ->
                      a.param(BackpressureAdvisor.TENANT, "acme")
                          .param(BackpressureAdvisor.PRIORITY, "P1"))
              .call()
              .chatResponse();

      // The mock's Azure dialect answers with the deployment of the path, not the body's model.
      assertThat(reply.getMetadata().getModel()).isEqualTo(DEPLOYMENT);

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
   * Azure's 429 (its {@code retry-after-ms}, code {@code "429"}), which the OpenAI SDK under Spring
   * AI throws as its {@code RateLimitException}: sent once, heard by the gate, and the next call
   * deferred before it reaches the deployment.
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
          .satisfies(s -> assertThat(s.status()).isEqualTo(429));
      assertThat(gate.releases()).hasSize(2);
      assertThat(gate.outstanding()).isZero();
    }
  }
}
