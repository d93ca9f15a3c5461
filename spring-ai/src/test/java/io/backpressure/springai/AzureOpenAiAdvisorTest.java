package io.backpressure.springai;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.openai.azure.AzureOpenAIServiceVersion;
import io.backpressure.client.DeferredException;
import io.backpressure.client.test.MockAnswers;
import io.backpressure.client.test.TestGates;
import io.backpressure.core.ManualClock;
import io.backpressure.core.testing.RecordingGate;
import io.backpressure.mock.MockProvider;
import io.backpressure.mock.RequestRecord;
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
      TestGates.recording("azure/my-resource/" + DEPLOYMENT, 100, 100_000, new ManualClock());

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
    try (MockProvider provider = MockProvider.start(MockAnswers.atOnce(30).build())) {
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

      RequestRecord record = TestGates.assertReleasedAsCounted(gate, provider);
      assertThat(record.completionTokens()).isEqualTo(30);
      assertThat(gate.requests())
          .singleElement()
          .satisfies(request -> assertThat(request.maxTokens()).isEqualTo(50L));
    }
  }

  /**
   * Azure's 429 (its {@code retry-after-ms}, code {@code "429"}), which the OpenAI SDK under Spring
   * AI throws as its {@code RateLimitException}: sent once, heard by the gate, and the next call
   * deferred before it reaches the deployment.
   */
  @Test
  void a429IsSentOnceHeardByTheGateAndTheNextCallDeferred() throws Exception {
    try (MockProvider provider =
        MockProvider.start(MockAnswers.oneRequestPer(Duration.ofMinutes(10)))) {
      ChatClient chat = chat(provider);

      ask(chat);
      assertThatThrownBy(() -> ask(chat)).isInstanceOf(DeferredException.class);

      TestGates.assertThe429Heard(gate, provider);
    }
  }
}
