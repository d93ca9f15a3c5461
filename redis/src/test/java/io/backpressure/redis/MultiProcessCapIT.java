package io.backpressure.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.backpressure.core.Dimension;
import io.backpressure.core.Policy;
import io.backpressure.core.testing.WindowPeak;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * No over-admission across processes: three JVMs with eight callers each share one target on one
 * Redis, each for 20 s from its first admission (a JVM slow to start still takes its full part).
 * From the merged log of admissions (stamped with the server's decision time), the admitted
 * requests and tokens in every one-second window, at any alignment, stay within cap plus burst,
 * while the binding dimension is kept busy whenever a process runs.
 */
class MultiProcessCapIT {
  /**
   * Each process's run: twenty one-second windows of all three processes together, about 300
   * admissions at the request cap, in which the checks slide a window over every alignment.
   */
  private static final double SECONDS = 20;

  /**
   * Caps that the callers exceed however loaded the machine: at a load average of 22 on two cores
   * the 24 callers asked about 25 calls (4 900 tokens) a second, so a cap of 150 requests a second
   * was never reached and the run showed nothing; the two dimensions bind together, as a call costs
   * 200 tokens on average.
   */
  private static final double REQUESTS = 15;

  private static final double REQUEST_BURST = 3;
  private static final double TOKENS = 3_000;
  private static final double TOKEN_BURST = 600;

  /** The least a process admits: a tenth of its even part of the run's cap. */
  private static final double LEAST_PER_PROCESS = REQUESTS * SECONDS / 3 / 10;

  private record Admitted(long micros, double requests, double tokens) {}

  @Test
  void threeProcessesOfEightThreadsNeverExceedCapPlusBurstInAnyOneSecondWindow() throws Exception {
    Policy policy =
        Policy.builder("multi/model")
            .dimension(Dimension.REQUESTS, REQUESTS, REQUEST_BURST)
            .dimension(Dimension.TOKENS, TOKENS, TOKEN_BURST)
            .priority("P1", 0.5)
            .priority("P2", 0.3)
            .priority("P3", 0.2)
            .idleTtl(Duration.ofSeconds(5))
            .build();
    RedisGateConfig config = TestRedis.shared().config().policy(policy).build();
    RedisGate.over(TestRedis.shared().connection(), false, config);

    Path dir = Files.createTempDirectory("bp-multi");
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    String classpath =
        System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
    List<Process> processes = new ArrayList<>();
    for (int p = 0; p < 3; p++) {
      processes.add(
          new ProcessBuilder(
                  java,
                  "-Xmx256m",
                  "-cp",
                  classpath,
                  AdmitLoad.class.getName(),
                  TestRedis.shared().url(),
                  config.keyPrefix(),
                  config.target(),
                  Double.toString(SECONDS),
                  "8",
                  dir.resolve("admitted-" + p + ".txt").toString())
              .redirectErrorStream(true)
              .redirectOutput(dir.resolve("process-" + p + ".log").toFile())
              .start());
    }
    for (int p = 0; p < processes.size(); p++) {
      Process process = processes.get(p);
      // A process admits for SECONDS from its first admission, which may take it up to
      // FIRST_ADMISSION_WITHIN; its JVM's start comes before both.
      long within = (long) SECONDS + AdmitLoad.FIRST_ADMISSION_WITHIN.toSeconds() + 30;
      assertThat(process.waitFor(within, TimeUnit.SECONDS)).as("process %d finished", p).isTrue();
      assertThat(process.exitValue()).as("process %d exit code; log in %s", p, dir).isZero();
    }

    List<Admitted> log = new ArrayList<>();
    List<long[]> runs = new ArrayList<>();
    for (int p = 0; p < processes.size(); p++) {
      List<String> lines = Files.readAllLines(dir.resolve("admitted-" + p + ".txt"));
      assertThat((double) lines.size())
          .as("admissions of process %d", p)
          .isGreaterThan(LEAST_PER_PROCESS);
      long first = Long.MAX_VALUE;
      long last = Long.MIN_VALUE;
      for (String line : lines) {
        String[] f = line.split(" ");
        Admitted a =
            new Admitted(Long.parseLong(f[0]), Double.parseDouble(f[1]), Double.parseDouble(f[2]));
        log.add(a);
        first = Math.min(first, a.micros());
        last = Math.max(last, a.micros());
      }
      runs.add(new long[] {first, last});
    }
    log.sort(Comparator.comparingLong(Admitted::micros));

    assertThat(maxInAnyWindow(log, true)).isLessThanOrEqualTo(REQUESTS + REQUEST_BURST + 1e-6);
    assertThat(maxInAnyWindow(log, false)).isLessThanOrEqualTo(TOKENS + TOKEN_BURST + 1e-6);
    // The rate while at least one process was admitting: JVMs that start far apart on a loaded
    // machine leave gaps between their runs, in which nobody asked.
    double busy = busySeconds(runs);
    double tokens = log.stream().mapToDouble(Admitted::tokens).sum();
    assertThat(tokens / busy)
        .as("tokens admitted per second while a process ran (%.1f s)", busy)
        .isGreaterThan(0.5 * TOKENS);
    for (File f : dir.toFile().listFiles()) {
      f.delete();
    }
    dir.toFile().delete();
  }

  /** The length of the union of the runs' [first, last] admission times (µs), in seconds. */
  private static double busySeconds(List<long[]> runs) {
    List<long[]> sorted = new ArrayList<>(runs);
    sorted.sort(Comparator.comparingLong(r -> r[0]));
    long busy = 0;
    long from = sorted.get(0)[0];
    long to = sorted.get(0)[1];
    for (long[] run : sorted.subList(1, sorted.size())) {
      if (run[0] > to) {
        busy += to - from;
        from = run[0];
      }
      to = Math.max(to, run[1]);
    }
    return (busy + to - from) / 1e6;
  }

  /** The most admitted in any one-second window [t, t + 1 s), over every alignment. */
  private static double maxInAnyWindow(List<Admitted> log, boolean requests) {
    return WindowPeak.max(
        log, Admitted::micros, a -> requests ? a.requests() : a.tokens(), 1_000_000);
  }
}
