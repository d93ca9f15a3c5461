package io.backpressure.anthropic.example;

// imports:start
import com.anthropic.client.AnthropicClient;
import com.anthropic.models.messages.Message;
import com.anthropic.models.messages.MessageCreateParams;
import io.backpressure.anthropic.GatedAnthropic;
import io.backpressure.client.CostModel;
import io.backpressure.client.GateContext;
import io.backpressure.core.Gate;
import io.backpressure.core.InMemoryGate;
import io.backpressure.core.Policy;

// imports:end

/**
 * The example of this module's README with its imports, compiled and run by {@code
 * ReadmeExampleTest}; in a package of its own, so that it imports what an application imports.
 */
public final class ReadmeExample {

  private ReadmeExample() {}

  public static Message ask(String baseUrl, String apiKey) {
    // example:start
    Gate gate =
        InMemoryGate.create(
            Policy.builder("anthropic/claude-haiku-4-5")
                .dimension("requests", 50 / 60.0, 5)
                .dimension("input_tokens", 50_000 / 60.0, 5_000)
                .dimension("output_tokens", 10_000 / 60.0, 2_000)
                .priority("P1", 1)
                .build());
    AnthropicClient client =
        GatedAnthropic.builder()
            .gate(gate)
            .costModel(CostModel.SEPARATE_INPUT_OUTPUT) // RPM, ITPM and OTPM
            .clientOptions(options -> options.baseUrl(baseUrl).apiKey(apiKey))
            .build(); // SDK retries are turned off
    MessageCreateParams params =
        MessageCreateParams.builder()
            .model("claude-haiku-4-5")
            .maxTokens(200)
            .addUserMessage("Say hello")
            .build();
    try (GateContext.Scope scope = GateContext.of("acme", "P1").open()) {
      return client.messages().create(params); // admitted, sent, released with usage
    }
    // example:end
  }
}
