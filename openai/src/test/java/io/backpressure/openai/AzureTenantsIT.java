package io.backpressure.openai;

import com.openai.azure.AzureOpenAIServiceVersion;
import com.openai.azure.AzureUrlPathMode;
import com.openai.azure.credential.AzureApiKeyCredential;
import com.openai.client.OpenAIClient;
import com.openai.errors.RateLimitException;
import com.openai.models.chat.completions.ChatCompletionCreateParams;
import io.backpressure.client.ModelRoutes;
import io.backpressure.client.ProviderFeedback;
import io.backpressure.client.test.SharedQuota;
import io.backpressure.client.test.TenantLoad;
import io.backpressure.core.testing.RecordingGate;
import io.backpressure.mock.MockProvider;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * Four tenants share an Azure OpenAI deployment whose quota is 10 requests per window (the mock's
 * Azure dialect, fixed one-second windows), through one gate on the wall clock and openai-java in
 * its Azure mode: no 429 reaches a caller, every call is answered, and what the gate released
 * matches what the provider counted.
 */
class AzureTenantsIT {

  @Test
  void fourTenantsAtACapOfTenPerWindowMeetNo429() throws Exception {
    RecordingGate gate = SharedQuota.gate("azure/my-resource/gpt-4o-prod");
    try (MockProvider provider = MockProvider.start(SharedQuota.provider())) {
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
              SharedQuota.TENANTS,
              SharedQuota.CALLS,
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

      SharedQuota.assertAnsweredWithin(outcome, provider, gate);
      client.close();
    }
  }
}
