package io.backpressure.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.backpressure.core.Admission;
import io.backpressure.core.AdmissionRequest;
import io.backpressure.core.Cost;
import io.backpressure.core.Dimension;
import io.backpressure.core.Grant;
import io.backpressure.core.Policy;
import io.backpressure.core.feedback.FeedbackPolicy;
import io.backpressure.core.feedback.ProviderSignal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The effective caps are shared across processes: a second JVM ({@link AdmitLoad}, four callers
 * always waiting) admits against one target on one Redis while this process, which alone sees the
 * provider's answers, reports a 429 that carries a lower {@code limit} header. From the child's log
 * of admissions (stamped with the server's decision time), its rate is the configured cap before
 * the report; after it the child admits nothing while the 429's {@code retry-after} runs and then
 * the lowered effective cap, although the child never heard from the provider.
 */
class FeedbackTwoProcessIT {
  private static final double CAP = 60;
  private static final double BURST = 5;

  /**
   * How long the child admits from its first admission: the 2.5 s before the report, the report and
   * the two decisions around it, and the 3 s after it, with 4 s to spare for a loaded machine.
   */
  private static final double CHILD_SECONDS = 10;

  private static final long SECOND = 1_000_000;
  private static final long RETRY_AFTER_MICROS = 500_000;

  @Test
  void a429SeenInOneProcessLowersWhatTheOtherProcessAdmitsAtItsNextAdmission() throws Exception {
    Policy policy =
        Policy.builder("two-process/model")
            .dimension(Dimension.REQUESTS, CAP, BURST)
            .priority("P1", 1)
            .feedback(FeedbackPolicy.builder().period(Duration.ofSeconds(1)).build())
            .build();
    RedisGateConfig config = TestRedis.shared().config().policy(policy).build();
    Path dir = Files.createTempDirectory("bp-feedback-two");
    Path log = dir.resolve("admitted.txt");
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    String classpath =
        System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));

    try (RedisGate seesTheAnswers = RedisGate.connect(config)) {
      Process child =
          new ProcessBuilder(
                  java,
                  "-Xmx256m",
                  "-cp",
                  classpath,
                  AdmitLoad.class.getName(),
                  TestRedis.shared().url(),
                  config.keyPrefix(),
                  config.target(),
                  Double.toString(CHILD_SECONDS),
                  "4",
                  log.toString(),
                  "steady")
              .redirectErrorStream(true)
              .redirectOutput(dir.resolve("child.log").toFile())
              .start();
      long started = System.nanoTime();
      // The report comes once the child has admitted for a little over 2 s, however long its JVM
      // took to start.
      awaitFirstAdmission(child, AdmitLoad.startedMarker(log));
      Thread.sleep(2_500);

      AdmissionRequest request = AdmissionRequest.of("parent", "P1", Cost.requests(1));
      Grant grant = admitted(seesTheAnswers, request);
      long before =
          seesTheAnswers.decide(request.withMaxWait(Duration.ZERO)).join().decidedAtMicros();
      seesTheAnswers.feedback(
          grant,
          ProviderSignal.rateLimited("requests", Duration.ofNanos(1_000 * RETRY_AFTER_MICROS))
              .withLimit("requests", 30.0, null, null));
      long after =
          seesTheAnswers.decide(request.withMaxWait(Duration.ZERO)).join().decidedAtMicros();
      double lowered =
          seesTheAnswers.feedbackState().orElseThrow().dimensions().get("requests").effective();
      assertThat(lowered).as("the adopted limit, with headroom").isEqualTo(0.95 * 30);

      long left = (long) (CHILD_SECONDS * 1e9) - (System.nanoTime() - started);
      assertThat(child.waitFor(TimeUnit.NANOSECONDS.toSeconds(left) + 60, TimeUnit.SECONDS))
          .as("child finished")
          .isTrue();
      assertThat(child.exitValue()).as("child exit code; log in %s", dir).isZero();

      List<Long> times =
          Files.readAllLines(log).stream()
              .map(line -> Long.parseLong(line.split(" ")[0]))
              .sorted()
              .toList();
      assertThat(times.get(0))
          .as("the child admitted for 2 s before the report")
          .isLessThan(before - 2 * SECOND);
      assertThat(times.get(times.size() - 1))
          .as("and for 3 s after it")
          .isGreaterThan(after + 3 * SECOND);
      long ahead = times.stream().filter(t -> t >= before - 2 * SECOND && t < before).count();
      long behind = times.stream().filter(t -> t >= after && t < after + 3 * SECOND).count();
      long firstSecond = times.stream().filter(t -> t >= after && t < after + SECOND).count();
      // The pause runs from the report, which came after "before": [after, before + retry-after)
      // lies inside it however long the report and the next decision took.
      long held = times.stream().filter(t -> t >= after && t < before + RETRY_AFTER_MICROS).count();
      System.out.printf(
          "two processes: child admitted %d in the 2 s before the 429, %d in the 3 s after"
              + " (%d in the first second, %d during the retry-after) at an effective cap of"
              + " %.1f/s%n",
          ahead, behind, firstSecond, held, lowered);
      assertThat(ahead)
          .as("2 s at the configured %s/s", CAP)
          .isGreaterThanOrEqualTo((long) (0.9 * 2 * CAP));
      assertThat(held).as("nothing while the provider's retry-after runs").isZero();
      // After the report: the lowered rate plus at most its (scaled) burst, from the first second
      // on.
      double burst = BURST * lowered / CAP;
      assertThat((double) firstSecond)
          .as("the first second after the report")
          .isLessThanOrEqualTo(lowered + burst + 1);
      assertThat((double) behind)
          .as("3 s after the report")
          .isLessThanOrEqualTo(3 * lowered + burst + 1);
      assertThat((double) behind)
          .as("and kept busy at it once the retry-after has run")
          .isGreaterThanOrEqualTo(0.9 * (3 - RETRY_AFTER_MICROS / 1e6) * lowered - 1);
    } finally {
      for (java.io.File f : dir.toFile().listFiles()) {
        f.delete();
      }
      dir.toFile().delete();
    }
  }

  /**
   * Waits until the child has admitted its first call; fails if it exits first or takes a minute.
   */
  private static void awaitFirstAdmission(Process child, Path marker) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(1);
    while (!Files.exists(marker)) {
      assertThat(child.isAlive()).as("child running before its first admission").isTrue();
      assertThat(System.nanoTime())
          .as("child's first admission within a minute")
          .isLessThan(deadline);
      Thread.sleep(20);
    }
  }

  private static Grant admitted(RedisGate gate, AdmissionRequest request)
      throws InterruptedException {
    while (true) {
      Admission answer = gate.admit(request);
      if (answer instanceof Admission.Admitted a) {
        gate.release(a.grant(), Cost.requests(1));
        return a.grant();
      }
      if (!(answer instanceof Admission.Deferred d)) {
        throw new AssertionError("unexpected " + answer);
      }
      Thread.sleep(Math.max(1, d.retryAfter().toMillis()));
      request = request.withBooking(d.booking());
    }
  }
}
