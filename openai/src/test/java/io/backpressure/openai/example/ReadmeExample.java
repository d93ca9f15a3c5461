package io.backpressure.openai.example;

// imports:start
import com.openai.client.OpenAIClient;
import com.openai.models.chat.completions.ChatCompletion;
import com.openai.models.chat.completions.ChatCompletionCreateParams;
import io.backpressure.client.GateContext;
import io.backpressure.core.Gate;
import io.backpressure.core.InMemoryGate;
import io.backpressure.core.Policy;
import io.backpressure.openai.GatedOpenAI;

// imports:end

/**
 * The example of this module's README with its imports, compiled and run by {@code
 * ReadmeExampleTest}; in a package of its own, so that it imports what an application imports.
 */
public final class ReadmeExample {

  private ReadmeExample() {}

  /** Asks the provider at {@code baseUrl} one question through the example's gated client. */
  public static ChatCompletion ask(String baseUrl, String apiKey) {
    // example:start
    Gate gate =
        InMemoryGate.create(
            Policy.builder("openai/gpt-4o-mini")
                .requestsPerMinute(500)
                .tokensPerMinute(200_000)
                .priority("P1", 0.7)
                .priority("P2", 0.3)
                .build()); // or the Redis gate
    OpenAIClient client =
        GatedOpenAI.builder()
            .gate(gate) // SDK retries are turned off
            .clientOptions(options -> options.baseUrl(baseUrl).apiKey(apiKey))
            .build();
    ChatCompletionCreateParams params =
        ChatCompletionCreateParams.builder()
            .model("gpt-4o-mini")
            .addUserMessage("Say hello")
            .maxCompletionTokens(50)
            .build();
    try (GateContext.Scope scope = GateContext.of("acme", "P1").open()) {
      return client.chat().completions().create(params); // admitted, sent, released with usage
    }
    // example:end
  }
}
