package io.backpressure.client;

import static org.assertj.core.api.Assertions.assertThat;

import io.backpressure.client.test.ReadmeSnippet;
import io.backpressure.core.Gate;
import io.backpressure.core.InMemoryGate;
import io.backpressure.core.Policy;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class ReadmeExampleTest {

  private static final String SOURCE = "src/test/java/io/backpressure/client/ReadmeExample.java";

  @Test
  void theRoutesExampleRoutesAsItsCommentsSay() {
    ModelRoutes routes =
        ReadmeExample.routes(
            target ->
                InMemoryGate.create(
                    Policy.builder(target).requestsPerSecond(1).priority("P1", 1).build()));
    assertThat(routes.gateFor("gpt-4o-mini-2024-07-18").orElseThrow().target())
        .isEqualTo("openai/gpt-4o-mini");
    assertThat(routes.gateFor("gpt-4o").orElseThrow().target()).isEqualTo("openai/gpt-4o");
    assertThat(routes.gateFor("my-eu-deployment").orElseThrow().target()).isEqualTo("azure/eu");
    assertThat(routes.gateFor("my-eu-deployment-2").orElseThrow().target())
        .isEqualTo("openai/other");
  }

  /** Two calls with a burst of one: the second waits out its turn instead of throwing. */
  @Test
  void theWaitingExampleWaitsForItsTurn() {
    Gate gate =
        InMemoryGate.create(
            Policy.builder("openai/gpt-4o")
                .dimension("requests", 20, 1)
                .tokensPerSecond(100_000)
                .priority("P2", 1)
                .build());
    AtomicInteger sent = new AtomicInteger();

    assertThat(ReadmeExample.outsideTemporal(gate, () -> "ok " + sent.incrementAndGet()))
        .isEqualTo("ok 1");
    assertThat(ReadmeExample.outsideTemporal(gate, () -> "ok " + sent.incrementAndGet()))
        .isEqualTo("ok 2");
  }

  @Test
  void theReadmeShowsTheExamplesAsCompiled() throws Exception {
    String readme = ReadmeSnippet.readme();
    for (String name : List.of("routes", "waiting")) {
      assertThat(readme).contains(snippet(name));
    }
  }

  private static String snippet(String name) throws Exception {
    List<String> lines = Files.readAllLines(Path.of(SOURCE));
    int start = lines.indexOf("    // example:start " + name) + 1;
    int end = lines.indexOf("    // example:end " + name);
    StringBuilder text = new StringBuilder();
    for (String line : lines.subList(start, end)) {
      text.append(line.isBlank() ? "" : line.substring(4)).append('\n');
    }
    return text.toString();
  }
}
