package io.backpressure.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class InMemoryGateConcurrencyTest {

  /**
   * A clock that moves a microsecond per read and tells each thread the time its last read saw, so
   * every admission is logged at exactly the time the gate decided it.
   */
  private static final class SteppingClock implements Ticker {
    private final AtomicLong nanos = new AtomicLong();
    private final ThreadLocal<Long> lastRead = new ThreadLocal<>();

    @Override
    public long nanoTime() {
      long now = nanos.addAndGet(1_000);
      lastRead.set(now);
      return now;
    }
  }

  private record Admitted(long nanos, double requests, double tokens) {}

  @Test
  void eightThreadsHammeringOneGateNeverOverAdmit() throws InterruptedException {
    Policy policy =
        Policy.builder("test/model")
            .dimension(Dimension.REQUESTS, 100, 10)
            .dimension(Dimension.TOKENS, 20_000, 4_000)
            .priority("P1", 0.6)
            .priority("P2", 0.4)
            .build();
    SteppingClock clock = new SteppingClock();
    InMemoryGate gate = InMemoryGate.create(policy, clock);
    int threads = 8;
    int attemptsPerThread = 200_000;
    List<List<Admitted>> logs = new ArrayList<>();
    CountDownLatch start = new CountDownLatch(1);
    List<Thread> workers = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      List<Admitted> log = new ArrayList<>();
      logs.add(log);
      String tenant = "tenant-" + (t % 5);
      String priority = t % 2 == 0 ? "P1" : "P2";
      double tokens = 50 + 100 * t;
      Thread worker =
          new Thread(
              () -> {
                try {
                  start.await();
                } catch (InterruptedException e) {
                  Thread.currentThread().interrupt();
                  return;
                }
                String booking = null;
                long retryAt = 0;
                for (int i = 0; i < attemptsPerThread; i++) {
                  if (clock.nanoTime() < retryAt) {
                    continue;
                  }
                  AdmissionRequest request =
                      AdmissionRequest.of(tenant, priority, Cost.requests(1).tokens(tokens));
                  Admission answer =
                      gate.admit(booking == null ? request : request.withBooking(booking));
                  if (answer instanceof Admission.Admitted) {
                    log.add(new Admitted(clock.lastRead.get(), 1, tokens));
                    booking = null;
                  } else if (answer instanceof Admission.Deferred d) {
                    booking = d.booking();
                    retryAt = clock.lastRead.get() + d.retryAfter().toNanos();
                  }
                }
              });
      worker.start();
      workers.add(worker);
    }
    start.countDown();
    for (Thread worker : workers) {
      worker.join();
    }

    List<Admitted> all = new ArrayList<>();
    logs.forEach(all::addAll);
    all.sort(Comparator.comparingLong(Admitted::nanos));
    double seconds = clock.nanos.get() / 1e9;
    assertThat(all.size()).isGreaterThan((int) (0.5 * 100 * seconds));
    assertThat(maxInWindow(all, Duration.ofSeconds(1), true)).isLessThanOrEqualTo(100 + 10);
    assertThat(maxInWindow(all, Duration.ofSeconds(1), false)).isLessThanOrEqualTo(20_000 + 4_000);
  }

  private static double maxInWindow(List<Admitted> log, Duration window, boolean requests) {
    double best = 0;
    double sum = 0;
    int head = 0;
    for (Admitted a : log) {
      sum += requests ? a.requests() : a.tokens();
      while (a.nanos() - log.get(head).nanos() >= window.toNanos()) {
        sum -= requests ? log.get(head).requests() : log.get(head).tokens();
        head++;
      }
      best = Math.max(best, sum);
    }
    return best;
  }
}
