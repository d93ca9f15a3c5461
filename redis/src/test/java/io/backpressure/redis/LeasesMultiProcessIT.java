package io.backpressure.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.backpressure.core.Admission;
import io.backpressure.core.Cost;
import io.backpressure.core.Dimension;
import io.backpressure.core.Policy;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A concurrency limit shared by three JVMs of eight callers each on one Redis, one of them killed
 * (SIGKILL) while it holds leases: the calls in flight, read from Redis every few milliseconds
 * while they run, never exceed the limit and reach it; the killed worker's leases expire by
 * themselves after their TTL and are counted, and none is left behind. The survivors hold each call
 * 5–20 ms; the doomed worker 200–400 ms, so that it holds leases when it dies. Takes about 20 s
 * beyond the JVMs' start.
 */
class LeasesMultiProcessIT {
  private static final int LIMIT = 6;
  private static final Duration LEASE_TTL = Duration.ofSeconds(2);
  private static final double SECONDS = 10;

  @Test
  void threeProcessesOfEightThreadsNeverHoldMoreThanTheLimit_andAKilledWorkersLeasesExpire()
      throws Exception {
    Policy policy =
        Policy.builder("leases/model")
            .dimension(Dimension.REQUESTS, 100_000, 100_000)
            .priority("P1", 1)
            .concurrency(LIMIT, LEASE_TTL)
            .build();
    RedisGateConfig config = TestRedis.shared().config().policy(policy).build();
    RedisGate gate = RedisGate.over(TestRedis.shared().connection(), false, config);
    RedisPolicyStore store = gate.policyStore();

    Path dir = Files.createTempDirectory("bp-leases");
    List<Process> processes = new ArrayList<>();
    for (int p = 0; p < 3; p++) {
      processes.add(start(config, dir, p, p == 2 ? "leases:200:400" : "leases:5:20"));
    }
    Path doomedStarted = AdmitLoad.startedMarker(dir.resolve("admitted-2.txt"));
    long maxInFlight = 0;
    long samples = 0;
    long deadline = System.nanoTime() + AdmitLoad.FIRST_ADMISSION_WITHIN.toNanos();
    // Until every process has admitted a call, then for 3 s more: the doomed worker dies there.
    long killAt = Long.MAX_VALUE;
    while (System.nanoTime() < killAt) {
      assertThat(System.nanoTime()).as("every process admitted a call").isLessThan(deadline);
      maxInFlight = Math.max(maxInFlight, store.inFlight());
      samples++;
      if (killAt == Long.MAX_VALUE && allStarted(dir)) {
        killAt = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
      }
      Thread.sleep(2);
    }
    assertThat(doomedStarted).exists();
    long killedAt = System.nanoTime();
    processes.get(2).destroyForcibly().waitFor(30, TimeUnit.SECONDS);
    // The survivors run on, through the killed worker's leases' expiry.
    while (processes.get(0).isAlive() || processes.get(1).isAlive()) {
      maxInFlight = Math.max(maxInFlight, store.inFlight());
      samples++;
      Thread.sleep(2);
    }
    for (int p = 0; p < 2; p++) {
      assertThat(processes.get(p).exitValue())
          .as("process %d exit code; log in %s", p, dir)
          .isZero();
      assertThat(Files.readAllLines(dir.resolve("admitted-" + p + ".txt")))
          .as("admissions of process %d", p)
          .hasSizeGreaterThan(100);
    }

    assertThat(samples).as("readings of the calls in flight").isGreaterThan(500);
    assertThat(maxInFlight).as("the most calls in flight at one reading").isEqualTo(LIMIT);
    // Every lease taken was released or has expired (the killed worker took its last before it was
    // killed, so all of its leases have expired one TTL after that, which the survivors' run has
    // mostly outlasted); an admission sweeps the expired ones.
    long expiredBy = killedAt + LEASE_TTL.toNanos() + TimeUnit.MILLISECONDS.toNanos(50);
    TimeUnit.NANOSECONDS.sleep(Math.max(0, expiredBy - System.nanoTime()));
    Admission last = gate.admit("sweeper", "P1", Cost.requests(1));
    assertThat(last).isInstanceOf(Admission.Admitted.class);
    gate.release(((Admission.Admitted) last).grant(), Cost.requests(1));
    assertThat(store.inFlight()).isZero();
    assertThat(store.expiredLeases())
        .as("the killed worker's leases, expired and counted")
        .isBetween(1L, (long) LIMIT);
    for (File f : dir.toFile().listFiles()) {
      f.delete();
    }
    dir.toFile().delete();
  }

  private static boolean allStarted(Path dir) {
    for (int p = 0; p < 3; p++) {
      if (!Files.exists(AdmitLoad.startedMarker(dir.resolve("admitted-" + p + ".txt")))) {
        return false;
      }
    }
    return true;
  }

  private static Process start(RedisGateConfig config, Path dir, int p, String calls)
      throws Exception {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    String classpath =
        System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
    return new ProcessBuilder(
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
            dir.resolve("admitted-" + p + ".txt").toString(),
            calls)
        .redirectErrorStream(true)
        .redirectOutput(dir.resolve("process-" + p + ".log").toFile())
        .start();
  }
}
