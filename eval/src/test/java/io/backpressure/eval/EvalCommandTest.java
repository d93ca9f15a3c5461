package io.backpressure.eval;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.backpressure.eval.sim.Configuration;
import io.backpressure.eval.sim.GateConfiguration;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class EvalCommandTest {
  @TempDir Path dir;

  private final StringWriter err = new StringWriter();

  private int eval(String... args) {
    CommandLine cmd = new CommandLine(new EvalCommand());
    cmd.setErr(new PrintWriter(err, true));
    cmd.setOut(new PrintWriter(new StringWriter(), true));
    return cmd.execute(args);
  }

  @Test
  void writesSummaryReportAndPlotsInTheSpecShape() throws Exception {
    Path out = dir.resolve("cp");
    int code =
        eval(
            "--workload",
            "cross-priority",
            "--configs",
            "naive,bp",
            "--repeats",
            "2",
            "--duration-s",
            "10",
            "--out",
            out.toString());
    assertThat(code).as(err.toString()).isZero();
    JsonNode summary = new ObjectMapper().readTree(out.resolve("summary.json").toFile());
    assertThat(summary.get("workload").asText()).isEqualTo("cross-priority");
    assertThat(summary.get("mode").asText()).isEqualTo("sim");
    assertThat(summary.get("repeats").asInt()).isEqualTo(2);
    JsonNode bp = summary.get("configs").get("bp");
    assertThat(bp.get("http_429_share").get("mean").isNumber()).isTrue();
    assertThat(bp.get("http_429_share").has("ci95")).isTrue();
    JsonNode okRps = bp.get("ok_rps_total");
    assertThat(okRps.get("min").asDouble())
        .isLessThanOrEqualTo(okRps.get("mean").asDouble())
        .isLessThanOrEqualTo(okRps.get("max").asDouble());
    assertThat(bp.get("ok_rps_by_priority").get("P1").get("mean").isNumber()).isTrue();
    assertThat(bp.get("ideal_rps_by_queue").get("t_p3_b").get("mean").asDouble())
        .isCloseTo(6.0, org.assertj.core.api.Assertions.within(1e-6));
    assertThat(bp.has("gate_latency_ms")).isFalse();
    for (String key :
        new String[] {
          "ok_rps_total",
          "ok_rps_by_queue",
          "achievement_jain",
          "priority_order_held",
          "p95_latency_ms_by_priority",
          "slot_ms_per_ok",
          "deferrals_per_ok",
          "cap_utilization"
        }) {
      assertThat(bp.has(key)).as(key).isTrue();
    }
    String report = Files.readString(out.resolve("report.md"));
    assertThat(report)
        .contains("| metric | naive | bp | paper |")
        .contains("naive 23.2 %")
        .contains("gate_latency_ms");
    assertThat(out.resolve("ok_rps_by_priority.png")).isRegularFile();
    assertThat(out.resolve("heatmap-naive.png")).isRegularFile();
    assertThat(out.resolve("heatmap-bp.png")).isRegularFile();
    assertThat(Files.readAllBytes(out.resolve("heatmap-bp.png"))).startsWith(0x89, 'P', 'N', 'G');

    Path again = dir.resolve("again");
    eval(
        "--workload",
        "cross-priority",
        "--configs",
        "naive,bp",
        "--repeats",
        "2",
        "--duration-s",
        "10",
        "--out",
        again.toString());
    assertThat(Files.readAllBytes(again.resolve("summary.json")))
        .isEqualTo(Files.readAllBytes(out.resolve("summary.json")));
  }

  @Test
  void aWorkloadFileRunsToo() throws Exception {
    Path file = dir.resolve("mine.yaml");
    Files.writeString(
        file,
        """
        name: mine
        duration_s: 8
        warmup_s: 1
        upstream: {requests_per_s: 20}
        priorities: {P1: 1}
        worker: {slots: 2}
        tenants:
          - {name: x, priority: P1, workflows: 3}
        """);
    assertThat(
            eval(
                "--workload",
                file.toString(),
                "--configs",
                "tn",
                "--repeats",
                "1",
                "--out",
                dir.resolve("mine").toString()))
        .as(err.toString())
        .isZero();
    assertThat(dir.resolve("mine/summary.json")).isRegularFile();
  }

  @Test
  void unknownModesAndMisplacedRealOptionsAreRefusedBeforeAnyRun() {
    assertThat(eval("--workload", "overload", "--mode", "replay", "--out", dir.toString()))
        .isEqualTo(2);
    assertThat(err.toString()).contains("unknown --mode 'replay'").contains("allowed: sim, real");
    assertThat(eval("--workload", "overload", "--redis", "redis://127.0.0.1:6379")).isEqualTo(2);
    assertThat(err.toString()).contains("need --mode real");
    assertThat(eval("--workload", "overload", "--mode", "real", "--workers", "3")).isEqualTo(2);
    assertThat(err.toString()).contains("--workers 3 needs --redis URL");
    assertThat(eval("--workload", "overload", "--mode", "real", "--redis-cluster", "127.0.0.1"))
        .isEqualTo(2);
    assertThat(err.toString())
        .contains("--redis-cluster: clusterSeeds: each seed must be HOST:PORT");
    assertThat(
            eval(
                "--workload",
                "overload",
                "--mode",
                "real",
                "--redis-cluster",
                "127.0.0.1:7000",
                "--redis",
                "redis://127.0.0.1:6379"))
        .isEqualTo(2);
    assertThat(err.toString()).contains("--redis and --redis-cluster exclude each other");
    assertThat(eval("--workload", "overload", "--redis-cluster", "127.0.0.1:7000")).isEqualTo(2);
    assertThat(err.toString()).contains("need --mode real");
    assertThat(eval("--workload", "overload", "--mode", "real", "--temporal", "nohost"))
        .isEqualTo(2);
    assertThat(err.toString()).contains("--temporal must be HOST:PORT");
    assertThat(eval("--workload", "overload", "--mode", "real", "--scale", "0.5")).isEqualTo(2);
    assertThat(err.toString()).contains("--scale must be in [1, 1000]");
    assertThat(eval("--workload", "overload", "--mode", "real", "--temporal-tls")).isEqualTo(2);
    assertThat(err.toString()).contains("--temporal-tls needs --temporal HOST:PORT");
    assertThat(eval("--workload", "overload", "--send-margin-ms", "100")).isEqualTo(2);
    assertThat(err.toString()).contains("--send-margin-ms need --mode real");
    assertThat(eval("--workload", "overload", "--mode", "real", "--send-margin-ms", "1001"))
        .isEqualTo(2);
    assertThat(err.toString()).contains("--send-margin-ms must be in [0, 1000], got 1001");
  }

  @Test
  void theRecordedCommandNeverHoldsARedisPassword() {
    assertThat(EvalCommand.redacted("redis://:s3cret@10.0.0.5:6379/0"))
        .isEqualTo("redis://***@10.0.0.5:6379/0");
    assertThat(EvalCommand.redacted("rediss://user:s3cret@host:6380"))
        .isEqualTo("rediss://***@host:6380");
    assertThat(EvalCommand.redacted("redis://127.0.0.1:6379")).isEqualTo("redis://127.0.0.1:6379");
  }

  /**
   * A password holding a character URL parsers split at, raw or percent-encoded, is masked whole:
   * none of its pieces is left in the recorded command.
   */
  @Test
  void theRecordedCommandHoldsNoPieceOfAPasswordWithURLSpecialCharacters() {
    String specials = " !\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~";
    for (int i = 0; i < specials.length(); i++) {
      char c = specials.charAt(i);
      String password = "QXZJ" + c + "QKVJ";
      String encoded = "QXZJ%" + String.format("%02X", (int) c) + "QKVJ";
      for (String written : List.of(password, encoded)) {
        for (String url :
            List.of(
                "redis://:" + written + "@10.0.0.5:6379/0",
                "rediss://user:" + written + "@host:6380",
                "redis-sentinel://:" + written + "@127.0.0.1:26379/0#mymaster")) {
          assertThat(EvalCommand.redacted(url))
              .as("recorded for %s", url)
              .doesNotContain("QXZJ")
              .doesNotContain("QKVJ")
              .contains("***@");
        }
      }
    }
  }

  @Test
  void badInputExitsWithTwoAndSaysWhatIsAllowed() throws Exception {
    assertThat(eval("--workload", "overload", "--configs", "naive,litellm")).isEqualTo(2);
    assertThat(err.toString()).contains("unknown configuration 'litellm'").contains("gateway");
    Path file = dir.resolve("typo.yaml");
    Files.writeString(
        file,
        """
        name: t
        duration_s: 5
        upstream: {requests_per_s: 1}
        priorities: {P1: 1}
        worker: {slots: 1, cores: 2}
        tenants: [{name: a, priority: P1, workflows: 1}]
        """);
    assertThat(eval("--workload", file.toString())).isEqualTo(2);
    assertThat(err.toString()).contains("unknown key 'worker.cores'");
    assertThat(eval("--workload", "overload", "--duration-s", "3")).isEqualTo(2);
    assertThat(err.toString()).contains("warmup_s");
  }

  @Test
  void theAblationsAreRefusedInRealModeBeforeAnyRun() {
    assertThat(eval("--workload", "noisy-estimates", "--mode", "real", "--configs", "bp,bp-oracle"))
        .isEqualTo(2);
    assertThat(err.toString()).contains("bp-oracle is an ablation of the simulator only");
    assertThat(GateConfiguration.Variant.FULL.simulatedOnly()).isFalse();
    assertThat(GateConfiguration.Variant.NO_SAFE_WINDOW.simulatedOnly()).isFalse();
    assertThat(GateConfiguration.Variant.REJECTED_HELD.simulatedOnly()).isTrue();
    assertThat(((GateConfiguration) Configuration.named("bp-fq")).simulatedOnly()).isFalse();
    assertThat(
            eval(
                "--workload",
                "cross-priority",
                "--mode",
                "real",
                "--configs",
                "bp-fq-no-firm-slot"))
        .isEqualTo(2);
    assertThat(err.toString()).contains("bp-fq-no-firm-slot is an ablation of the simulator only");
  }
}
