package io.backpressure.eval.real;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.backpressure.eval.EvalCommand;
import io.backpressure.eval.LibraryLogs;
import io.backpressure.eval.workload.Fault;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
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
 * window saw more than cap + burst, and after the state was lost none more than the cap, with the
 * gate's safe window widened by the send margin {@link #SEND_MARGIN_MS}; after each fault the
 * provider answered 90 % of the cap (or of the rate the run reached outside its faults, on a
 * machine too loaded to reach the cap) within one second, within 2 s of the fault's end as it took
 * effect (of the end of the designed pause, {@link #PAUSE_AFTER_LOSS_S}, after a lost state), when
 * the machine lets the stack hold that rate without faults ({@link #MEASURABLE_BELOW_SHARE}). After
 * worker-kill too: the replacement is a standby process started with the others, which polls as
 * soon as it is told, and the calls whose activities died with the killed worker run again on the
 * others once their heartbeat timeout (2 s for a gated activity, whose heartbeat the activity gate
 * keeps going while the call runs) expires. The dead worker is counted (its ledger is lost, the
 * evaluation is not).
 */
class FaultIT {
  /**
   * The faults, in order, each ending at least 4 s before the next starts. The worker is killed
   * last, so that every other fault meets both workers.
   */
  static final List<String> MATRIX =
      List.of(
          "redis-stop@8+2",
          "redis-flush@14",
          "redis-kill@18+2",
          "provider-errors@24+2",
          "provider-slow@30+2",
          "worker-kill@36+2");

  static final String WORKER_KILL = "worker-kill@36+2";

  /** The target: recovery within this many seconds of a fault's end. */
  static final double RECOVERY_S = 2.0;

  /**
   * Recovery times are checked only when at most this share of the run's fault-free windows holds
   * fewer 200s than a recovered gate needs ({@code fault_recovery_below_share}): above it the
   * stack's own swings, with no fault at all, take longer than the target to reach the mark (on the
   * shared machine 42 % and 61 % gave 2.2 and 3.7 s, 22–33 % stayed within 1.8 s; eval README,
   * faults). The cap and the calls are checked whatever the load.
   */
  static final double MEASURABLE_BELOW_SHARE = 0.25;

  /**
   * The gate-side margin for send-delay variation the run is given ({@code --send-margin-ms}). The
   * gate holds the cap in its own time: after a state loss the buckets restart empty and the lost
   * period counts as spent, the safe window counts every admission, and on its return to the shared
   * state each worker charges it with what it admitted locally in the hand-back horizon
   * (FailOpenGate; {@code FailOpenHandBackTest} checks that on a virtual clock). The provider
   * counts arrivals, which follow admissions by a delay that varies from call to call: on the
   * loaded machine by up to 42–788 ms (p99 of admission to arrival in seven runs at load 10–20),
   * and without a margin windows of 16 came before any state loss as well as after it (eval README,
   * faults). With the safe window 200 ms longer at the same allowance ({@code
   * Policy.withSendMargin}), no provider window sees more than the cap while delays vary by less
   * than that.
   */
  static final int SEND_MARGIN_MS = 200;

  /**
   * How long the gate admits nothing after its state was lost, by design: the safe window of the
   * provider's one-second period widened by {@link #SEND_MARGIN_MS} (the restarted window counts
   * the lost period as spent; guards.lua, lost state). {@code LostStateTest} checks on a virtual
   * clock that gating resumes exactly one window after the loss. A fault that loses the state
   * ({@code redis-flush}, {@code redis-kill}) is given {@link #RECOVERY_S} from the end of that
   * pause: measured from the loss, the recovery also holds the pause, then the line's pacing of the
   * calls deferred through it and the stack's timer latency (eval README, faults).
   */
  static final double PAUSE_AFTER_LOSS_S = 1.0 + SEND_MARGIN_MS / 1000.0;

  @Test
  void everyFaultKeepsTheCapAndEveryCallAndGatingComesBackWithinTwoSeconds(@TempDir Path dir)
      throws Exception {
    Assumptions.assumeTrue(redisServerOnPath(), "--redis auto needs redis-server on PATH");
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    CommandLine cli =
        new CommandLine(new EvalCommand())
            .setOut(new PrintWriter(out))
            .setErr(new PrintWriter(err));
    List<String> args =
        new java.util.ArrayList<>(
            List.of(
                "--workload",
                "cross-priority",
                "--configs",
                "bp",
                "--mode",
                "real",
                "--redis",
                "auto",
                "--when-unavailable",
                "local",
                "--workers",
                "2",
                "--duration-s",
                "44",
                "--repeats",
                "1",
                "--send-margin-ms",
                Integer.toString(SEND_MARGIN_MS),
                "--out",
                dir.toString()));
    MATRIX.forEach(f -> args.addAll(List.of("--fault", f)));
    int exit = cli.execute(args.toArray(String[]::new));
    assertThat(exit).as("%s%n%s%nworker processes:%n%s", out, err, workersLog(dir)).isZero();
    for (String fault : MATRIX) {
      assertThat(out.toString()).contains("fault " + fault + ": step at");
    }

    JsonNode summary = new ObjectMapper().readTree(dir.resolve("summary.json").toFile());
    assertThat(summary.get("faults").toString())
        .isEqualTo(new ObjectMapper().writeValueAsString(MATRIX));
    JsonNode bp = summary.get("configs").get("bp");
    String context = bp.toPrettyString() + "\n" + out;
    assertThat(bp.get("calls_failed").get("mean").asDouble()).as(context).isZero();
    assertThat(bp.get("workers_lost").get("mean").asDouble()).as(workersLog(dir)).isEqualTo(1.0);
    assertThat(bp.get("ok_rps_total").get("mean").asDouble()).isPositive();

    double bound = bp.get("upstream_window_bound").get("requests").get("mean").asDouble();
    double cap = 15;
    assertThat(bound).as("cap 15 + burst 15 at the real-mode scale").isEqualTo(2 * cap);
    assertThat(bp.get("upstream_max_outside_faults").get("requests").get("mean").asDouble())
        .as(context)
        .isLessThanOrEqualTo(bound);
    assertThat(bp.get("upstream_max_after_state_loss").get("requests").get("mean").asDouble())
        .as(context)
        .isLessThanOrEqualTo(cap);
    assertThat(
            out.toString()
                .lines()
                .filter(
                    l ->
                        l.startsWith("fault " + WORKER_KILL + ": step at")
                            && !l.contains("failed")))
        .as("the standby replaced the killed worker and polled\n" + out)
        .hasSize(2);
    double below = bp.get("fault_recovery_below_share").get("mean").asDouble();
    Map<String, Double> recoveries = new LinkedHashMap<>();
    for (String fault : MATRIX) {
      JsonNode recovery = bp.get("fault_recovery_s").get(fault).get("mean");
      assertThat(recovery.isNumber()).as(fault + " ended\n" + context).isTrue();
      recoveries.put(fault, recovery.asDouble());
      System.out.printf("FaultIT: %s recovered in %.2f s%n", fault, recovery.asDouble());
    }
    if (below > MEASURABLE_BELOW_SHARE) {
      System.out.printf(
          "FaultIT: recoveries not checked: %.0f %% of the fault-free windows held fewer than 90 %%"
              + " of the rate reached (machine too loaded to measure recovery)%n",
          100 * below);
      return;
    }
    recoveries.forEach(
        (fault, recovery) -> {
          boolean losesState = !Double.isNaN(Fault.parse(fault).stateLostAtS());
          assertThat(recovery)
              .as(
                  "%s recovered in %.2f s (%.0f %% of fault-free windows below the mark)%n%s",
                  fault, recovery, 100 * below, context)
              .isLessThanOrEqualTo(RECOVERY_S + (losesState ? PAUSE_AFTER_LOSS_S : 0));
        });
  }

  /** What the worker processes printed (their log), for a failure's message. */
  private static String workersLog(Path dir) throws java.io.IOException {
    Path log = dir.resolve(LibraryLogs.WORKERS_FILE);
    return Files.exists(log) ? Files.readString(log) : "(no " + LibraryLogs.WORKERS_FILE + ")";
  }

  private static boolean redisServerOnPath() {
    try {
      return new ProcessBuilder("redis-server", "--version")
              .redirectErrorStream(true)
              .redirectOutput(ProcessBuilder.Redirect.DISCARD)
              .start()
              .waitFor()
          == 0;
    } catch (java.io.IOException e) {
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }
}
