package io.backpressure.samples.langchain4j;

import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.model.openai.OpenAiChatModel;
import io.backpressure.client.GateContext;
import io.backpressure.core.Gate;
import io.backpressure.core.InMemoryGate;
import io.backpressure.core.Policy;
import io.backpressure.langchain4j.GatedChatModel;
import io.backpressure.langchain4j.SendCheckingHttpClientBuilder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Three tenants, one per priority class, each make ten calls at once through one gated LangChain4j
 * {@code ChatModel}; a deferred call waits for its turn on its thread, in line (up to a minute).
 * Prints, per tenant, the calls answered and the errors that reached the caller (a provider 429
 * among them), which should be none.
 *
 * <pre>
 * ./backpressure mock-llm --port 8080 --requests-per-s 5 --tokens-per-s 2000
 * java -jar samples/langchain4j-sample/target/langchain4j-sample.jar [http://127.0.0.1:8080/v1]
 * </pre>
 */
public final class SharedProvider {
  private static final int CALLS_PER_TENANT = 10;

  private SharedProvider() {}

  /** What one tenant saw. */
  record Tally(String tenant, String priority, int answered, int errors, long millis) {}

  public static void main(String[] args) throws Exception {
    String baseUrl = args.length > 0 ? args[0] : "http://127.0.0.1:8080/v1";
    // The provider's caps, as mock-llm is started above; the safe window matches its fixed window.
    Policy policy =
        Policy.builder("mock/gpt-4o-mini")
            .requestsPerSecond(5)
            .tokensPerSecond(2_000)
            .priority("P1", 0.5)
            .priority("P2", 0.3)
            .priority("P3", 0.2)
            .safeWindow(Duration.ofSeconds(1))
            .build();
    Gate gate = InMemoryGate.create(policy);
    ChatModel model =
        GatedChatModel.builder(
                OpenAiChatModel.builder()
                    .httpClientBuilder(SendCheckingHttpClientBuilder.create()) // the send check
                    .baseUrl(baseUrl)
                    .apiKey("sk-mock")
                    .modelName("gpt-4o-mini")
                    .maxRetries(0) // the gate replaces retries on the calling thread
                    .timeout(Duration.ofSeconds(30))
                    .build(),
                gate)
            .maxWait(Duration.ofMinutes(1)) // a deferred call waits here, in line
            .build();

    ExecutorService pool = Executors.newFixedThreadPool(3);
    List<Future<Tally>> tallies = new ArrayList<>();
    tallies.add(pool.submit(() -> run(model, GateContext.of("acme", "P1"))));
    tallies.add(pool.submit(() -> run(model, GateContext.of("globex", "P2"))));
    tallies.add(pool.submit(() -> run(model, GateContext.of("initech", "P3"))));
    System.out.printf("%-8s %-4s %9s %7s %8s%n", "tenant", "cls", "answered", "errors", "seconds");
    for (Future<Tally> future : tallies) {
      Tally t = future.get();
      System.out.printf(
          "%-8s %-4s %9d %7d %8.1f%n",
          t.tenant(), t.priority(), t.answered(), t.errors(), t.millis() / 1000.0);
    }
    pool.shutdown();
  }

  /** One tenant's calls, one after another. */
  private static Tally run(ChatModel model, GateContext context) {
    long start = System.nanoTime();
    int answered = 0;
    int errors = 0;
    for (int i = 0; i < CALLS_PER_TENANT; i++) {
      String prompt = "Summarise ticket " + context.tenant() + "-" + i;
      try {
        context.call(() -> model.chat(prompt));
        answered++;
      } catch (Exception error) {
        errors++;
      }
    }
    return new Tally(
        context.tenant(),
        context.priority(),
        answered,
        errors,
        (System.nanoTime() - start) / 1_000_000);
  }
}
