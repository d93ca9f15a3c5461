package io.backpressure.langchain4j.example;

// imports:start
import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.model.openai.OpenAiChatModel;
import io.backpressure.client.GateContext;
import io.backpressure.core.Gate;
import io.backpressure.core.InMemoryGate;
import io.backpressure.core.Policy;
import io.backpressure.langchain4j.GatedChatModel;
import io.backpressure.langchain4j.SendCheckingHttpClientBuilder;
import java.time.Duration;

// imports:end

/**
 * The README's example with its imports, compiled and run by {@code ReadmeExampleTest}; in a
 * package of its own, so that it imports what an application imports.
 */
public final class ReadmeExample {
  private ReadmeExample() {}

  /** Sends one call through the example's gated model to {@code baseUrl}. */
  public static String answer(String baseUrl) throws Exception {
    // example:start
    Gate gate =
        InMemoryGate.create(
            Policy.builder("openai/gpt-4o-mini")
                .requestsPerMinute(600)
                .tokensPerMinute(200_000)
                .priority("P1", 0.7)
                .priority("P2", 0.3)
                .build());
    ChatModel model =
        GatedChatModel.builder(
                OpenAiChatModel.builder()
                    .httpClientBuilder(SendCheckingHttpClientBuilder.create()) // the send check
                    .baseUrl(baseUrl)
                    .apiKey("sk-mock")
                    .modelName("gpt-4o-mini")
                    .maxRetries(0) // the gate replaces retries on the calling thread
                    .build(),
                gate)
            .maxWait(Duration.ofSeconds(30)) // a deferred call waits here, in line
            .build();
    // ExpiredException only when its turn would come after 30 s; a 429 becomes such a wait too
    return GateContext.of("acme", "P1").call(() -> model.chat("Hello"));
    // example:end
  }
}
