package io.backpressure.openai;

import com.openai.azure.AzureOpenAIServiceVersion;
import com.openai.azure.AzureUrlPathMode;
import com.openai.azure.credential.AzureApiKeyCredential;
import com.openai.client.OpenAIClient;
import com.openai.models.chat.completions.ChatCompletion;
import com.openai.models.chat.completions.ChatCompletionCreateParams;
import io.backpressure.client.GateContext;
import io.backpressure.client.ModelRoutes;
import io.backpressure.client.ProviderFeedback;
import io.backpressure.core.Gate;
import io.backpressure.core.InMemoryGate;

/** The Azure example of this module's README, compiled and run by {@code ReadmeExampleTest}. */
final class AzureReadmeExample {

  private AzureReadmeExample() {}

  static ChatCompletion ask(String endpoint, String key) {
    // example:start
    Gate gate =
        InMemoryGate.create(
            AzureDeployment.quota("azure/my-resource/gpt-4o-prod", 80_000) // and 480 RPM
                .priority("P1", 0.7)
                .priority("P2", 0.3)
                .build()); // or the Redis gate
    OpenAIClient client =
        GatedOpenAI.builder()
            .routes(ModelRoutes.builder().route("gpt-4o-prod", gate).build()) // deployment → gate
            .feedback(ProviderFeedback.toGate(gate)) // retry-after-ms, and which limit was hit
            .clientOptions(
                options ->
                    options
                        .baseUrl(endpoint) // https://my-resource.openai.azure.com
                        .credential(AzureApiKeyCredential.create(key))
                        .azureServiceVersion(AzureOpenAIServiceVersion.fromString("2024-10-21"))
                        .azureUrlPathMode(AzureUrlPathMode.LEGACY)) // /openai/deployments/…
            .build();
    ChatCompletionCreateParams params =
        ChatCompletionCreateParams.builder()
            .model("gpt-4o-prod") // the deployment
            .addUserMessage("Say hello")
            .maxCompletionTokens(50)
            .build();
    try (GateContext.Scope scope = GateContext.of("acme", "P1").open()) {
      return client.chat().completions().create(params);
    }
    // example:end
  }
}
