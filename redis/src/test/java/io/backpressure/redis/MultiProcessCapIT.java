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
 * while the binding dimension is kept busy.
 */
class MultiProcessCapIT {
  /**
   * Each process's run: twenty one-second windows of all three processes together, about 3 000
   * admissions at the request cap, in which the checks slide a window over every alignment.
   */
  private static final double SECONDS = 20;

  private static final double REQUESTS = 150;
  private static final double REQUEST_BURST = 30;
  private static final double TOKENS = 30_000;
  private static final double TOKEN_BURST = 6_000;

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
    for (int p = 0; p < processes.size(); p++) {
      List<String> lines = Files.readAllLines(dir.resolve("admitted-" + p + ".txt"));
      assertThat(lines).as("admissions of process %d", p).hasSizeGreaterThan(100);
      for (String line : lines) {
        String[] f = line.split(" ");
        log.add(
            new Admitted(Long.parseLong(f[0]), Double.parseDouble(f[1]), Double.parseDouble(f[2])));
      }
    }
    log.sort(Comparator.comparingLong(Admitted::micros));

    assertThat(maxInAnyWindow(log, true)).isLessThanOrEqualTo(REQUESTS + REQUEST_BURST + 1e-6);
    assertThat(maxInAnyWindow(log, false)).isLessThanOrEqualTo(TOKENS + TOKEN_BURST + 1e-6);
    double span = (log.get(log.size() - 1).micros() - log.get(0).micros()) / 1e6;
    double tokens = log.stream().mapToDouble(Admitted::tokens).sum();
    assertThat(tokens / span).as("tokens admitted per second").isGreaterThan(0.5 * TOKENS);
    for (File f : dir.toFile().listFiles()) {
      f.delete();
    }
    dir.toFile().delete();
  }

  /** The most admitted in any one-second window [t, t + 1 s), over every alignment. */
  private static double maxInAnyWindow(List<Admitted> log, boolean requests) {
    return WindowPeak.max(
        log, Admitted::micros, a -> requests ? a.requests() : a.tokens(), 1_000_000);
  }
}
