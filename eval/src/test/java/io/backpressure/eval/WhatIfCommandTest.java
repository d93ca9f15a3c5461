package io.backpressure.eval;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class WhatIfCommandTest {
  @TempDir Path dir;

  private final StringWriter out = new StringWriter();
  private final StringWriter err = new StringWriter();

  private int whatIf(String... args) {
    CommandLine cmd = new CommandLine(new WhatIfCommand());
    cmd.setErr(new PrintWriter(err, true));
    cmd.setOut(new PrintWriter(out, true));
    return cmd.execute(args);
  }

  /**
   * A burst: tenant "big" sends 40 calls of 900 tokens in the first 2 s, "small" one call of 100
   * tokens a second, against 6 000 tokens/s (1 s windows).
   */
  @BeforeEach
  void writeTraceAndPolicies() throws Exception {
    StringBuilder csv = new StringBuilder("at,user,in,out\n");
    int small = 0;
    for (int i = 0; i < 40; i++) {
      double at = i * 0.05;
      while (small < 30 && small <= at) {
        csv.append(small).append(",small,100,10\n");
        small++;
      }
      csv.append(at).append(",big,900,100\n");
    }
    for (; small < 30; small++) {
      csv.append(small).append(",small,100,10\n");
    }
    Files.writeString(dir.resolve("calls.csv"), csv);
    Files.writeString(
        dir.resolve("w.yaml"),
        """
        name: burst
        duration_s: 30
        upstream: {period_s: 1, requests_per_s: 50, tokens_per_s: 6000, latency_ms: [100, 300]}
        priorities: {P1: 1.0}
        worker: {slots: 16}
        tenants:
          - name: log
            priority: P1
            trace: {file: calls.csv, timestamp: at, prompt_tokens: in, completion_tokens: out,
                    tenant: user}
        """);
    Files.writeString(
        dir.resolve("fair.yaml"),
        """
        target: t
        dimensions: {requests: {per_second: 50}, tokens: {per_second: 6000, burst: 6000}}
        priorities: {P1: 1.0}
        safe_window: 1s
        feedback: {period: 1s}
        """);
    Files.writeString(
        dir.resolve("half.yaml"),
        """
        target: t
        dimensions: {requests: {per_second: 50}, tokens: {per_second: 3000, burst: 3000}}
        priorities: {P1: 1.0}
        safe_window: 1s
        feedback: {period: 1s}
        """);
  }

  @Test
  void reportsEachTenantPerPolicyAndTheSameSeedGivesTheSameSummary() throws Exception {
    String[] args = {
      "--workload", dir.resolve("w.yaml").toString(),
      "--policy", dir.resolve("fair.yaml").toString(),
      "--policy", dir.resolve("half.yaml").toString(),
      "--configs", "naive",
      "--deadline-s", "2",
      "--out", dir.resolve("a").toString()
    };
    assertThat(whatIf(args)).as(err.toString()).isZero();
    args[args.length - 1] = dir.resolve("b").toString();
    assertThat(whatIf(args)).as(err.toString()).isZero();
    String a = Files.readString(dir.resolve("a/summary.json"));
    assertThat(Files.readString(dir.resolve("b/summary.json"))).isEqualTo(a);
    assertThat(dir.resolve("a/what-if-wait.png")).exists();
    assertThat(dir.resolve("a/what-if-cap.png")).exists();
    assertThat(out.toString()).contains("policy fair:", "policy half:", "policy naive:", " big ");

    JsonNode policies = new ObjectMapper().readTree(a).get("policies");
    JsonNode fair = policies.get("fair").get("by_tenant");
    JsonNode half = policies.get("half").get("by_tenant");
    JsonNode naive = policies.get("naive").get("by_tenant");
    assertThat(fair.get("big").get("calls").asInt()).isEqualTo(40);
    assertThat(fair.get("small").get("calls").asInt()).isEqualTo(30);
    // 40 000 tokens of burst against 6 000 a second: the gate spreads them over about 7 s, so the
    // last big calls wait seconds, while small's calls, in a queue of their own, barely wait.
    assertThat(fair.get("big").get("wait_p95_ms").asDouble()).isGreaterThan(3000);
    assertThat(fair.get("small").get("wait_p95_ms").asDouble()).isLessThan(1500);
    assertThat(fair.get("big").get("http_429").asInt()).isZero();
    // Half the cap configured: the burst takes twice as long.
    assertThat(half.get("big").get("wait_p95_ms").asDouble())
        .isGreaterThan(1.5 * fair.get("big").get("wait_p95_ms").asDouble());
    assertThat(half.get("big").get("late").asInt())
        .isGreaterThan(fair.get("big").get("late").asInt());
    // Without a gate the provider refuses part of the burst.
    assertThat(naive.get("big").get("http_429").asInt()).isPositive();
    assertThat(policies.get("fair").get("cap_utilization").get("tokens").asDouble())
        .isBetween(0.1, 1.0);
  }

  @Test
  void refusesAPolicyWithoutTheWorkloadsClassesAndChangesNothing() throws Exception {
    Files.writeString(
        dir.resolve("other.yaml"),
        """
        target: t
        dimensions: {requests: {per_second: 50}}
        priorities: {gold: 1.0}
        """);
    int code =
        whatIf(
            "--workload", dir.resolve("w.yaml").toString(),
            "--policy", dir.resolve("other.yaml").toString(),
            "--out", dir.resolve("c").toString());
    assertThat(code).isEqualTo(2);
    assertThat(err.toString()).contains("policy other has no class 'P1'", "its classes: gold");
    assertThat(dir.resolve("c")).doesNotExist();
    Files.writeString(dir.resolve("broken.yaml"), "target: t\ncolour: blue\n");
    assertThat(
            whatIf(
                "--workload", dir.resolve("w.yaml").toString(),
                "--policy", dir.resolve("broken.yaml").toString()))
        .isEqualTo(2);
    assertThat(err.toString()).contains("broken.yaml", "colour");
  }
}
