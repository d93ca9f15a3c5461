package io.backpressure.eval;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * The demo, shortened to 20 s runs (about 50 s in all): a real-mode cross-priority run of naive and
 * bp on the Temporal test server and the mock provider over HTTP.
 */
class DemoCommandIT {
  @TempDir Path dir;

  @Test
  void printsTheTableAndBpKeepsPriorityOrderWithALowerP1p95ThanNaive() throws Exception {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    CommandLine cmd = new CommandLine(new DemoCommand());
    cmd.setOut(new PrintWriter(out, true));
    cmd.setErr(new PrintWriter(err, true));
    int code = cmd.execute("--duration-s", "20", "--out", dir.toString());

    assertThat(code).as(err.toString()).isZero();
    assertThat(out.toString())
        .contains(
            "OK req/s P1",
            "P1 p95 call latency (ms)",
            "429 share",
            "achievement Jain",
            "slot ms per OK call",
            "Report: " + dir.resolve("report.md").toAbsolutePath().normalize());
    assertThat(dir.resolve("ok_rps_by_priority.png")).isNotEmptyFile();
    assertThat(dir.resolve("heatmap-bp.png")).isNotEmptyFile();

    JsonNode summary = new ObjectMapper().readTree(dir.resolve("summary.json").toFile());
    assertThat(summary.get("mode").asText()).isEqualTo("real");
    assertThat(summary.get("scale").asDouble()).isEqualTo(4);
    JsonNode bp = summary.get("configs").get("bp");
    JsonNode naive = summary.get("configs").get("naive");
    double p1 = bp.get("ok_rps_by_priority").get("P1").get("mean").asDouble();
    double p2 = bp.get("ok_rps_by_priority").get("P2").get("mean").asDouble();
    double p3 = bp.get("ok_rps_by_priority").get("P3").get("mean").asDouble();
    assertThat(p1).as("bp P1 > P2 > P3: %s %s %s", p1, p2, p3).isGreaterThan(p2);
    assertThat(p2).isGreaterThan(p3);
    assertThat(bp.get("p95_latency_ms_by_priority").get("P1").get("mean").asDouble())
        .isLessThan(naive.get("p95_latency_ms_by_priority").get("P1").get("mean").asDouble());
    assertThat(bp.get("gate_latency_ms").get("p50").get("mean").isNumber()).isTrue();
    assertThat(bp.get("slot_occupancy").get("mean").asDouble()).isBetween(0.0, 1.0);
  }
}
