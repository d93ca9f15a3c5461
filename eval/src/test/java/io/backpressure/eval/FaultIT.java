package io.backpressure.eval;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * Faults on the real stack (eval/README.md, faults): a harness-owned redis-server stopped for 3 s, and one of two
 * worker processes killed and replaced, during one 25 s run of bp on cross-priority. The run
 * completes with every fault recorded, no call failed and the dead worker counted (its ledger is
 * lost, the evaluation is not).
 */
class FaultIT {

  @Test
  void theHarnessSurvivesRedisStoppingAndAWorkerDying(@TempDir Path dir) throws Exception {
    Assumptions.assumeTrue(redisServerOnPath(), "--redis auto needs redis-server on PATH");
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    CommandLine cli = new CommandLine(new EvalCommand()).setOut(new PrintWriter(out)).setErr(new PrintWriter(err));
    int exit = cli.execute("--workload", "cross-priority", "--configs", "bp", "--mode", "real", "--redis", "auto",
        "--workers", "2", "--fault", "redis-stop@8+3", "--fault", "worker-kill@14+2", "--duration-s", "25",
        "--repeats", "1", "--out", dir.toString());
    assertThat(exit).as(out + "\n" + err).isZero();
    assertThat(out.toString()).contains("fault redis-stop@8+3: step at").contains("fault worker-kill@14+2: step at");

    JsonNode summary = new ObjectMapper().readTree(dir.resolve("summary.json").toFile());
    assertThat(summary.get("faults").toString()).isEqualTo("[\"redis-stop@8+3\",\"worker-kill@14+2\"]");
    JsonNode bp = summary.get("configs").get("bp");
    assertThat(bp.get("calls_failed").get("mean").asDouble()).isZero();
    assertThat(bp.get("workers_lost").get("mean").asDouble()).as(java.nio.file.Files.readString(
        dir.resolve(LibraryLogs.WORKERS_FILE))).isEqualTo(1.0);
    assertThat(bp.get("failed_open_admissions").get("mean").asDouble()).isGreaterThanOrEqualTo(0);
    assertThat(bp.get("ok_rps_total").get("mean").asDouble()).isPositive();
  }

  private static boolean redisServerOnPath() {
    try {
      return new ProcessBuilder("redis-server", "--version").redirectErrorStream(true)
          .redirectOutput(ProcessBuilder.Redirect.DISCARD).start().waitFor() == 0;
    } catch (java.io.IOException e) {
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }
}
