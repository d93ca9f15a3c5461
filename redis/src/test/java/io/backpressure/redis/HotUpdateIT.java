package io.backpressure.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.backpressure.core.Admission;
import io.backpressure.core.AdmissionRequest;
import io.backpressure.core.Cost;
import io.backpressure.core.Dimension;
import io.backpressure.core.Policy;
import io.backpressure.core.testing.WindowPeak;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * Two running workers (two gates, server time) share a target; an operator lowers the cap from 200
 * to 40 requests/s while they run. From the change on, no one-second window holds more than the new
 * cap plus the new burst, and within one refill interval (burst/cap = 0.1 s) the new rate holds in
 * every window. No worker is restarted. The change is made once the workers run at the old cap's
 * rate, and the run ends 2.5 s after it in the server's time, however slowly a loaded machine gets
 * there.
 */
class HotUpdateIT {

  @Test
  void loweringACapMidRunIsHonouredWithinOneRefillInterval() throws Exception {
    Policy policy =
        Policy.builder("hot/model")
            .dimension(Dimension.REQUESTS, 200, 20)
            .priority("P1", 1)
            .build();
    Connection connection = TestRedis.shared().connection();
    RedisGateConfig config = TestRedis.shared().config().policy(policy).build();
    RedisGate first = RedisGate.over(connection, false, config);
    RedisGate second = RedisGate.over(connection, false, config);

    List<Long> admitted = Collections.synchronizedList(new ArrayList<>());
    AtomicBoolean running = new AtomicBoolean(true);
    ExecutorService workers = Executors.newFixedThreadPool(6);
    List<Future<?>> ends = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      RedisGate gate = i % 2 == 0 ? first : second;
      String tenant = "tenant-" + i;
      ends.add(
          workers.submit(
              () -> {
                AdmissionRequest request = AdmissionRequest.of(tenant, "P1", Cost.requests(1));
                while (running.get()) {
                  RedisGate.Decision decision = connection.await(gate.decide(request));
                  if (decision.admission() instanceof Admission.Admitted a) {
                    admitted.add(decision.decidedAtMicros());
                    gate.release(a.grant(), Cost.requests(1));
                    request = AdmissionRequest.of(tenant, "P1", Cost.requests(1));
                  } else if (decision.admission() instanceof Admission.Deferred d) {
                    Thread.sleep(Math.max(1, d.retryAfter().toMillis()));
                    request = request.withBooking(d.booking());
                  }
                }
                return null;
              }));
    }
    // The workers up to speed, however long their first round trips take on a loaded machine:
    // more than 150 admitted in the second before the change (asserted: a minute at most).
    awaitUntil(
        "the old cap's rate reached",
        () -> admittedInLastSecond(admitted, serverMicros(connection)) > 150);
    first.policyStore().setCap(Dimension.REQUESTS, 40, 4);
    long changedAt = serverMicros(connection);
    // Two and a half seconds of decisions after the change, in the server's time.
    awaitUntil("decisions 2.5 s after the change", () -> latest(admitted) >= changedAt + 2_500_000);
    running.set(false);
    workers.shutdown();
    assertThat(workers.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    for (Future<?> end : ends) {
      end.get(); // rethrows what ended a worker
    }

    List<Long> times = new ArrayList<>(admitted);
    Collections.sort(times);
    List<Long> after = times.stream().filter(t -> t >= changedAt).toList();
    double seconds = (times.get(times.size() - 1) - changedAt) / 1e6;
    assertThat((double) after.size())
        .as("admitted after the change")
        .isLessThanOrEqualTo(40 * seconds + 4 + 1);
    long refillInterval = 100_000;
    long worst =
        WindowPeak.maxCount(
            after.stream().filter(t -> t >= changedAt + refillInterval).toList(), 1_000_000);
    assertThat(worst)
        .as("most admitted in any 1 s window after one refill interval")
        .isBetween(30L, 44L);
  }

  /** Waits (up to a minute, on a loaded machine) until {@code condition} holds. */
  private static void awaitUntil(String what, Check condition) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(1);
    while (!condition.holds()) {
      assertThat(System.nanoTime()).as(what).isLessThan(deadline);
      Thread.sleep(50);
    }
  }

  /** A condition {@link #awaitUntil} polls. */
  @FunctionalInterface
  private interface Check {
    boolean holds();
  }

  private static long admittedInLastSecond(List<Long> admitted, long nowMicros) {
    synchronized (admitted) {
      return admitted.stream().filter(t -> t >= nowMicros - 1_000_000 && t < nowMicros).count();
    }
  }

  private static long latest(List<Long> admitted) {
    synchronized (admitted) {
      return admitted.stream().mapToLong(Long::longValue).max().orElse(Long.MIN_VALUE);
    }
  }

  private static long serverMicros(Connection connection) {
    List<String> time = connection.await(connection.commands().time().toCompletableFuture());
    return Long.parseLong(time.get(0)) * 1_000_000 + Long.parseLong(time.get(1));
  }
}
