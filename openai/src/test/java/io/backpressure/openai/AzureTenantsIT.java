package io.backpressure.openai;

import static org.assertj.core.api.Assertions.assertThat;

import com.openai.azure.AzureOpenAIServiceVersion;
import com.openai.azure.AzureUrlPathMode;
import com.openai.azure.credential.AzureApiKeyCredential;
import com.openai.client.OpenAIClient;
import com.openai.errors.RateLimitException;
import com.openai.models.chat.completions.ChatCompletionCreateParams;
import io.backpressure.client.ModelRoutes;
import io.backpressure.client.ProviderFeedback;
import io.backpressure.client.test.TenantLoad;
import io.backpressure.core.InMemoryGate;
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
 * Four tenants share an Azure OpenAI deployment whose quota is 10 requests per window (the mock's
 * Azure dialect, fixed one-second windows), through one gate on the wall clock and openai-java in
 * its Azure mode: no 429 reaches a caller, every call is answered, and what the gate released
 * matches what the provider counted.
 */
class AzureTenantsIT {

  private static final int TENANTS = 4;
  private static final int CALLS = 8;

  @Test
  void fourTenantsAtACapOfTenPerWindowMeetNo429() throws Exception {
    MockProviderConfig config =
        MockProviderConfig.builder()
            .requests(LimitSpec.of(WindowModel.FIXED, 10, Duration.ofSeconds(1)))
            .latencyMs(20, 60)
            .completionTokens(new CompletionTokens.Uniform(10, 30))
            .build();
    // 9 a second and a burst of 1: at most 10 in any one-second window.
    Policy policy =
        Policy.builder("azure/my-resource/gpt-4o-prod")
            .dimension("requests", 9, 1)
            .tokensPerSecond(1_000_000)
            .priority("P1", 1)
            .build();
    RecordingGate gate = new RecordingGate(InMemoryGate.create(policy));
    try (MockProvider provider = MockProvider.start(config)) {
      OpenAIClient client =
          GatedOpenAI.builder()
              .routes(ModelRoutes.builder().route("gpt-4o-prod", gate).build())
              .feedback(ProviderFeedback.toGate(gate))
              .clientOptions(
                  options ->
                      options
                          .baseUrl(provider.url())
                          .credential(AzureApiKeyCredential.create("azure-test-key"))
                          .azureServiceVersion(AzureOpenAIServiceVersion.fromString("2024-10-21"))
                          .azureUrlPathMode(AzureUrlPathMode.LEGACY))
              .build();
      TenantLoad.Outcome outcome =
          TenantLoad.run(
              TENANTS,
              CALLS,
              e -> e instanceof RateLimitException,
              Duration.ofSeconds(60),
              i ->
                  client
                      .chat()
                      .completions()
                      .create(
                          ChatCompletionCreateParams.builder()
                              .model("gpt-4o-prod")
                              .addUserMessage("call " + i)
                              .maxCompletionTokens(40)
                              .build()));

      assertThat(outcome.refused()).as("429s that reached a caller").isZero();
      assertThat(outcome.answered()).isEqualTo(TENANTS * CALLS);
      long counted = 0;
      for (RequestRecord record : provider.records()) {
        assertThat(record.status()).isEqualTo(200);
        counted += record.promptTokens() + record.completionTokens();
      }
      double released =
          gate.releases().stream()
              .filter(RecordingGate.Release::applied)
              .map(RecordingGate.Release::actual)
              .mapToDouble(c -> c.amount("tokens"))
              .sum();
      assertThat(released).isCloseTo(counted, org.assertj.core.data.Percentage.withPercentage(1));
      assertThat(gate.releasedWith()).allSatisfy(c -> assertThat(c.amount("requests")).isOne());
      assertThat(gate.outstanding()).isZero();
      client.close();
    }
  }
}
