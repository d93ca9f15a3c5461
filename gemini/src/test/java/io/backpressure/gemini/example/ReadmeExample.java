package io.backpressure.gemini.example;

// imports:start
import com.google.genai.Client;
import com.google.genai.types.GenerateContentConfig;
import com.google.genai.types.GenerateContentResponse;
import io.backpressure.client.CostModel;
import io.backpressure.client.GateContext;
import io.backpressure.client.ProviderFeedback;
import io.backpressure.core.Gate;
import io.backpressure.core.InMemoryGate;
import io.backpressure.core.Policy;
import io.backpressure.gemini.GatedGemini;

// imports:end

/**
 * The example of this module's README with its imports, compiled and run by {@code
 * ReadmeExampleTest}; in a package of its own, so that it imports what an application imports.
 */
public final class ReadmeExample {

  private ReadmeExample() {}

  public static GenerateContentResponse ask(String baseUrl, String apiKey) {
    // example:start
    Gate gate =
        InMemoryGate.create(
            Policy.builder("gemini/my-project/gemini-2.5-flash") // the quota is per project
                .requestsPerMinute(1_000)
                .dimension("input_tokens", 1_000_000 / 60.0, 1_000_000 / 60.0)
                .priority("P1", 0.7)
                .priority("P2", 0.3)
                .build()); // or the Redis gate
    Client client =
        GatedGemini.builder()
            .gate(gate) // the SDK's retries are turned off
            .costModel(CostModel.of("requests", "input_tokens")) // what the Gemini API counts
            .feedback(ProviderFeedback.toGate(gate)) // RetryInfo, QuotaFailure
            .client(builder -> builder.apiKey(apiKey))
            .httpOptions(options -> options.baseUrl(baseUrl))
            .build();
    GenerateContentConfig config = GenerateContentConfig.builder().maxOutputTokens(50).build();
    try (GateContext.Scope scope = GateContext.of("acme", "P1").open()) {
      return client.models.generateContent("gemini-2.5-flash", "Say hello", config);
    }
    // example:end
  }
}
