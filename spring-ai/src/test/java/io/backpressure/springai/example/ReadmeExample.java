package io.backpressure.springai.example;

// imports:start
import io.backpressure.core.Gate;
import io.backpressure.core.InMemoryGate;
import io.backpressure.core.Policy;
import io.backpressure.springai.BackpressureAdvisor;
import java.time.Duration;
import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.chat.model.ChatModel;

// imports:end

/**
 * The README's example with its imports, compiled and run by {@code ReadmeExampleTest}; in a
 * package of its own, so that it imports what an application imports.
 */
public final class ReadmeExample {
  private ReadmeExample() {}

  /** Asks {@code openAi} one question through the example's advisor. */
  public static String answer(ChatModel openAi) {
    // example:start
    Gate gate =
        InMemoryGate.create(
            Policy.builder("openai/gpt-4o-mini")
                .requestsPerMinute(600)
                .tokensPerMinute(200_000)
                .priority("P1", 0.7)
                .priority("P2", 0.3)
                .build());
    ChatClient chat =
        ChatClient.builder(openAi) // the model with maxRetries(0)
            .defaultAdvisors(
                BackpressureAdvisor.builder(gate)
                    .maxWait(Duration.ofSeconds(30)) // a deferred call waits here, in line
                    .build())
            .build();
    // ExpiredException only when its turn would come after 30 s; a 429 becomes such a wait too
    return chat.prompt("Hello")
        .advisors(
            a ->
                a.param(BackpressureAdvisor.TENANT, "acme")
                    .param(BackpressureAdvisor.PRIORITY, "P1"))
        .call()
        .content();
    // example:end
  }
}
