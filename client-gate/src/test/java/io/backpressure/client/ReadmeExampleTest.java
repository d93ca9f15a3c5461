package io.backpressure.client;

import static org.assertj.core.api.Assertions.assertThat;

import io.backpressure.client.test.ReadmeSnippet;
import io.backpressure.core.InMemoryGate;
import io.backpressure.core.Policy;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
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

  @Test
  void theRetryExampleRetriesWithTheBookingAfterADeferral() throws Exception {
    List<GateContext> seen = new ArrayList<>();
    String answer =
        ReadmeExample.outsideTemporal(
            () -> {
              GateContext context = GateContext.current().orElseThrow();
              seen.add(context);
              if (seen.size() == 1) {
                throw new DeferredException("openai/gpt-4o", Duration.ofMillis(1), "booking-1");
              }
              return "ok";
            });
    assertThat(answer).isEqualTo("ok");
    assertThat(seen).extracting(GateContext::booking).containsExactly(null, "booking-1");
    assertThat(GateContext.current()).isEmpty();
  }

  @Test
  void theReadmeShowsTheExamplesAsCompiled() throws Exception {
    String readme = ReadmeSnippet.readme();
    for (String name : List.of("routes", "retry")) {
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
