package io.backpressure.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.backpressure.core.Admission;
import io.backpressure.core.AdmissionRequest;
import io.backpressure.core.Cost;
import io.backpressure.core.FailOpenGate;
import io.backpressure.core.Gate;
import io.backpressure.core.Policy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * A real redis-server is frozen with SIGSTOP for three seconds while 16 callers press on a cap of
 * 20 requests/s, then let go with SIGCONT. The admissions the clients timed out on during the stall
 * are still queued in the server's socket buffers and run the moment it resumes; without the
 * give-up guard they debited the buckets and stored bookings whose turns queued the real callers
 * behind them for seconds ("ghost admissions"). With it, they change nothing: gated admissions
 * resume at the full rate within one second of SIGCONT, and every call ends admitted.
 */
class RedisStallIT {
  private static final double CAP = 20;
  private static final int CALLERS = 16;

  private record Admit(long nanos, boolean gated) {}

  @Test
  void afterAStall_admissionsResumeAtTheFullRateWithinOneSecond_andNoCallIsLost() throws Exception {
    TestRedis server = TestRedis.owned();
    Assumptions.assumeTrue(server.canPause(), "needs redis-server on the PATH to send it SIGSTOP");
    Policy policy =
        Policy.builder("stall/model").dimension("requests", CAP, 2).priority("P1", 1).build();
    List<Admit> admits = Collections.synchronizedList(new ArrayList<>());
    AtomicInteger started = new AtomicInteger();
    AtomicInteger finished = new AtomicInteger();
    AtomicInteger exceptions = new AtomicInteger();
    long resumedAt;
    try (RedisGate redis =
        RedisGate.connect(
            RedisGateConfig.builder(server.url())
                .policy(policy)
                .commandTimeout(Duration.ofMillis(250))
                .build())) {
      Gate gate = FailOpenGate.around(redis).probeInterval(Duration.ofMillis(200)).build();
      AtomicBoolean running = new AtomicBoolean(true);
      ExecutorService callers = Executors.newFixedThreadPool(CALLERS);
      List<Future<?>> ends = new ArrayList<>();
      for (int i = 0; i < CALLERS; i++) {
        String tenant = "tenant-" + i;
        ends.add(
            callers.submit(
                () -> {
                  while (running.get()) {
                    started.incrementAndGet();
                    AdmissionRequest request = AdmissionRequest.of(tenant, "P1", Cost.requests(1));
                    try {
                      while (true) {
                        Admission answer = gate.admit(request);
                        if (answer instanceof Admission.Admitted a) {
                          admits.add(new Admit(System.nanoTime(), !a.grant().failedOpen()));
                          gate.release(a.grant(), Cost.requests(1));
                          finished.incrementAndGet();
                          break;
                        }
                        Admission.Deferred deferred = (Admission.Deferred) answer;
                        Thread.sleep(Math.max(1, deferred.retryAfter().toMillis()));
                        request = request.withBooking(deferred.booking());
                      }
                      Thread.sleep(20);
                    } catch (InterruptedException e) {
                      return;
                    } catch (RuntimeException e) {
                      exceptions.incrementAndGet();
                    }
                  }
                }));
      }
      Thread.sleep(2_000);
      server.pause();
      try {
        Thread.sleep(3_000);
      } finally {
        server.resume();
      }
      resumedAt = System.nanoTime();
      Thread.sleep(3_000);
      running.set(false);
      callers.shutdown();
      assertThat(callers.awaitTermination(20, TimeUnit.SECONDS)).as("callers ended").isTrue();
      for (Future<?> end : ends) {
        end.get(); // rethrows what ended a caller
      }
    } finally {
      server.stop();
    }

    assertThat(exceptions.get()).as("exceptions that reached a caller").isZero();
    assertThat(finished.get())
        .as("calls that ended admitted, of those started")
        .isEqualTo(started.get());
    long from = resumedAt + 1_000_000_000L;
    long gatedAfter =
        admits.stream()
            .filter(a -> a.gated() && a.nanos() >= from && a.nanos() < from + 2_000_000_000L)
            .count();
    System.out.printf(
        "stall: %d gated admissions in [SIGCONT + 1 s, SIGCONT + 3 s) at a cap of %.0f/s; %d calls, all"
            + " ended admitted: %b%n",
        gatedAfter, CAP, started.get(), finished.get() == started.get());
    assertThat(gatedAfter)
        .as("gated admissions in the 2 s from 1 s after SIGCONT (cap %s/s)", CAP)
        .isGreaterThanOrEqualTo((long) (0.9 * 2 * CAP));
    long ungatedAfter = admits.stream().filter(a -> !a.gated() && a.nanos() >= from).count();
    assertThat(ungatedAfter).as("calls failed open from 1 s after SIGCONT").isZero();
  }
}
