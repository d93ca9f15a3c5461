package io.backpressure.samples.springai;

import io.backpressure.client.GateContext;
import io.backpressure.springai.BackpressureAdvisor;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.springframework.ai.chat.client.ChatClient;
import org.springframework.boot.CommandLineRunner;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;

/**
 * Three tenants, one per priority class, each make ten calls at once through one {@code ChatClient}
 * that carries the starter's {@link BackpressureAdvisor}; the gate comes from {@code
 * application.properties}. A deferred call waits for its turn on its thread, in line (up to {@code
 * backpressure.max-wait}). Prints, per tenant, the calls answered and the errors that reached the
 * caller (a provider 429 among them), which should be none.
 *
 * <pre>
 * ./backpressure mock-llm --port 8080 --requests-per-s 5 --tokens-per-s 2000
 * java -jar samples/spring-ai-sample/target/spring-ai-sample.jar
 * </pre>
 */
@SpringBootApplication
public class SharedProviderApplication {
  private static final int CALLS_PER_TENANT = 10;

  public static void main(String[] args) {
    SpringApplication.run(SharedProviderApplication.class, args);
  }

  @Bean
  ChatClient chatClient(ChatClient.Builder builder, BackpressureAdvisor advisor) {
    return builder.defaultAdvisors(advisor).build();
  }

  @Bean
  CommandLineRunner threeTenants(ChatClient chat) {
    return args -> {
      ExecutorService pool = Executors.newFixedThreadPool(3);
      List<Future<String>> rows = new ArrayList<>();
      rows.add(pool.submit(() -> run(chat, GateContext.of("acme", "P1"))));
      rows.add(pool.submit(() -> run(chat, GateContext.of("globex", "P2"))));
      rows.add(pool.submit(() -> run(chat, GateContext.of("initech", "P3"))));
      System.out.printf(
          "%-8s %-4s %9s %7s %8s%n", "tenant", "cls", "answered", "errors", "seconds");
      for (Future<String> row : rows) {
        System.out.println(row.get());
      }
      pool.shutdown();
    };
  }

  /** One tenant's calls, one after another; the context travels as an advisor parameter. */
  private static String run(ChatClient chat, GateContext context) {
    long start = System.nanoTime();
    int answered = 0;
    int errors = 0;
    for (int i = 0; i < CALLS_PER_TENANT; i++) {
      String prompt = "Summarise ticket " + context.tenant() + "-" + i;
      try {
        chat.prompt(prompt).advisors(a -> a.param(GateContext.KEY, context)).call().content();
        answered++;
      } catch (RuntimeException error) {
        errors++;
      }
    }
    return String.format(
        "%-8s %-4s %9d %7d %8.1f",
        context.tenant(), context.priority(), answered, errors, (System.nanoTime() - start) / 1e9);
  }
}
