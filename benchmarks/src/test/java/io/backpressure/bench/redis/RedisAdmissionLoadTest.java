package io.backpressure.bench.redis;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** {@code bench redis} refuses bad options before it connects, naming the option. */
class RedisAdmissionLoadTest {

  private static String refusal(String... args) {
    PrintStream err = System.err;
    ByteArrayOutputStream captured = new ByteArrayOutputStream();
    System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
    try {
      assertThat(new CommandLine(new RedisAdmissionLoad()).execute(args)).isEqualTo(2);
    } finally {
      System.setErr(err);
    }
    return captured.toString(StandardCharsets.UTF_8);
  }

  @Test
  void anUnknownRuleIsRefusedNamingTheRulesThereAre() {
    assertThat(refusal("--url", "redis://127.0.0.1:1", "--rule", "fifo"))
        .contains("--rule must be nested-buckets or fair-queuing, got fifo");
  }

  @Test
  void theProfileTimesOnlyTheNestedBucketsScript() {
    assertThat(
            refusal("--url", "redis://127.0.0.1:1", "--rule", "fair-queuing", "--profile", "100"))
        .contains("--profile times the nested-buckets script's phases");
  }
}
