package io.backpressure.eval.real;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.backpressure.eval.EvalCommand;
import io.backpressure.eval.LibraryLogs;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * The fault matrix on the real stack (eval/README.md, faults): every fault kind, one after another
 * with time to recover between them, in one 44 s run of bp on cross-priority with two worker
 * processes sharing a harness-owned redis-server, in {@code --when-unavailable local} (the mode
 * that bounds what reaches the provider while Redis is away). The run completes with every fault
 * injected and checks the targets: no call failed; outside each fault's own duration no provider
 * window saw more than cap + burst, and after the state was lost none more than the cap plus what
 * {@link #afterStateLossBound} allows for the workers' return to Redis at different moments and
 * for send-time jitter; after each fault the provider answered 90 % of the cap (or of the rate the
 * run reached outside its faults, on a machine too loaded to reach the cap) within one second,
 * within 2 s of the fault's end as it took effect (for worker-kill: the replacement polling, when
 * it does before the run ends). The dead worker is counted (its ledger is lost, the evaluation is
 * not).
 */
class FaultIT {
  /**
   * The faults, in order, each ending at least 4 s before the next starts. The worker is killed
   * last: its replacement (a JVM) took 3 to 27 s to start polling on the loaded machine, and every
   * other fault should meet both workers.
   */
  static final List<String> MATRIX = List.of("redis-stop@8+2", "redis-flush@14", "redis-kill@18+2",
      "provider-errors@24+2", "provider-slow@30+2", "worker-kill@36+2");
  static final String WORKER_KILL = "worker-kill@36+2";
  /** The target: recovery within this many seconds of a fault's end. */
  static final double RECOVERY_S = 2.0;
  /**
   * The most a provider window may see after a state loss in {@code local} mode with {@code
   * workers} workers. Each worker returns to the shared state when its own probe is answered, so
   * for up to one probe interval plus one command timeout (100 + 250 ms, ResilientRedisGate's and
   * RedisGateConfig's defaults) the returned workers share a fresh, empty bucket refilling at the
   * cap while each other worker still admits at its local cap / workers. On top of that one request
   * of send-time jitter: the gate's window counts admissions, the provider's counts arrivals a few
   * milliseconds later (runs without faults show 16 against 15).
   */
  static double afterStateLossBound(double cap, int workers) {
    double skewS = 0.100 + 0.250;
    return cap + Math.ceil((workers - 1) / (double) workers * cap * skewS) + 1;
  }

  @Test
  void everyFaultKeepsTheCapAndEveryCallAndGatingComesBackWithinTwoSeconds(@TempDir Path dir) throws Exception {
    Assumptions.assumeTrue(redisServerOnPath(), "--redis auto needs redis-server on PATH");
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    CommandLine cli = new CommandLine(new EvalCommand()).setOut(new PrintWriter(out)).setErr(new PrintWriter(err));
    List<String> args = new java.util.ArrayList<>(List.of("--workload", "cross-priority", "--configs", "bp",
        "--mode", "real", "--redis", "auto", "--when-unavailable", "local", "--workers", "2", "--duration-s", "44",
        "--repeats", "1", "--out", dir.toString()));
    MATRIX.forEach(f -> args.addAll(List.of("--fault", f)));
    int exit = cli.execute(args.toArray(String[]::new));
    assertThat(exit).as(out + "\n" + err).isZero();
    for (String fault : MATRIX) {
      assertThat(out.toString()).contains("fault " + fault + ": step at");
    }

    JsonNode summary = new ObjectMapper().readTree(dir.resolve("summary.json").toFile());
    assertThat(summary.get("faults").toString()).isEqualTo(new ObjectMapper().writeValueAsString(MATRIX));
    JsonNode bp = summary.get("configs").get("bp");
    String context = bp.toPrettyString() + "\n" + out;
    assertThat(bp.get("calls_failed").get("mean").asDouble()).as(context).isZero();
    assertThat(bp.get("workers_lost").get("mean").asDouble()).as(Files.readString(
        dir.resolve(LibraryLogs.WORKERS_FILE))).isEqualTo(1.0);
    assertThat(bp.get("ok_rps_total").get("mean").asDouble()).isPositive();

    double bound = bp.get("upstream_window_bound").get("requests").get("mean").asDouble();
    double cap = 15;
    assertThat(bound).as("cap 15 + burst 15 at the real-mode scale").isEqualTo(2 * cap);
    assertThat(bp.get("upstream_max_outside_faults").get("requests").get("mean").asDouble()).as(context)
        .isLessThanOrEqualTo(bound);
    assertThat(bp.get("upstream_max_after_state_loss").get("requests").get("mean").asDouble()).as(context)
        .isLessThanOrEqualTo(afterStateLossBound(cap, 2));
    boolean replaced = out.toString().lines().filter(l -> l.startsWith("fault " + WORKER_KILL + ": step at")
        && !l.contains("failed")).count() == 2;
    for (String fault : MATRIX) {
      if (fault.equals(WORKER_KILL) && !replaced) {
        continue; // the replacement was not polling before the run ended: that recovery never began
      }
      JsonNode recovery = bp.get("fault_recovery_s").get(fault).get("mean");
      assertThat(recovery.isNumber()).as(fault + " ended\n" + context).isTrue();
      assertThat(recovery.asDouble()).as(fault + "\n" + context).isLessThanOrEqualTo(RECOVERY_S);
    }
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
