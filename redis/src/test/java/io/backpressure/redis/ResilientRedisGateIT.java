package io.backpressure.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.backpressure.core.Admission;
import io.backpressure.core.AdmissionRequest;
import io.backpressure.core.Cost;
import io.backpressure.core.FailOpenGate;
import io.backpressure.core.Policy;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The documented way to build a Redis gate on a real server: Redis down at start-up does not throw
 * (calls are decided locally and gating starts once Redis answers), and in LOCAL mode N workers
 * split the cap between them during an outage instead of each admitting all of it.
 */
class ResilientRedisGateIT {

  private static void await(String what, java.util.function.BooleanSupplier condition, long millis)
      throws InterruptedException {
    long deadline = System.nanoTime() + millis * 1_000_000;
    while (!condition.getAsBoolean()) {
      assertThat(System.nanoTime()).as("waiting for: " + what).isLessThan(deadline);
      Thread.sleep(20);
    }
  }

  @Test
  void redisDownAtStartUp_doesNotThrow_callsAreDecidedLocally_andGatingStartsOnceRedisAnswers()
      throws Exception {
    TestRedis server = TestRedis.owned();
    server.stop();
    Policy policy =
        Policy.builder("startup/model").dimension("requests", 5, 1).priority("P1", 1).build();
    try (ResilientRedisGate gate =
        ResilientRedisGate.open(
            RedisGateConfig.builder(server.url())
                .policy(policy)
                .keyPrefix(TestRedis.freshPrefix())
                .build())) {
      // LOCAL, the default: an in-memory gate with the whole cap (no other worker known yet),
      // its buckets empty at first, so the first call waits its turn; nothing goes ungated.
      Admission early = gate.admit("a", "P1", Cost.requests(1));
      assertThat(early).isInstanceOf(Admission.Deferred.class);
      assertThat(gate.failOpen().ungatedDecisions()).isEqualTo(1);
      assertThat(gate.connected()).isFalse();

      server.start();
      await("connected", gate::connected, 10_000);
      Thread.sleep(600);
      int deferred = 0;
      int gated = 0;
      for (int i = 0; i < 5; i++) {
        Admission answer = gate.admit("a", "P1", Cost.requests(1));
        if (answer instanceof Admission.Deferred) {
          deferred++;
        } else if (answer instanceof Admission.Admitted a && !a.grant().failedOpen()) {
          gated++;
        }
      }
      assertThat(gated).as("admitted by Redis").isEqualTo(1);
      assertThat(deferred).as("deferred by Redis (burst 1)").isEqualTo(4);
    } finally {
      server.stop();
    }
  }

  @Test
  void localMode_threeWorkersSplitTheCapDuringAnOutage() throws Exception {
    TestRedis server = TestRedis.owned();
    double cap = 30;
    Policy policy =
        Policy.builder("local/model").dimension("requests", cap, 3).priority("P1", 1).build();
    RedisGateConfig config =
        RedisGateConfig.builder(server.url())
            .policy(policy)
            .keyPrefix(TestRedis.freshPrefix())
            .whenUnavailable(FailOpenGate.Mode.LOCAL)
            .build();
    List<ResilientRedisGate> workers = new ArrayList<>();
    ExecutorService callers = Executors.newFixedThreadPool(6);
    try {
      for (int i = 0; i < 3; i++) {
        workers.add(ResilientRedisGate.open(config));
      }
      await(
          "every worker sees three live workers",
          () -> workers.stream().allMatch(w -> w.connected() && w.liveWorkers() == 3),
          10_000);
      server.stop();

      long end = System.nanoTime() + 3_000_000_000L;
      List<Future<Integer>> admitted = new ArrayList<>();
      for (int i = 0; i < 6; i++) {
        ResilientRedisGate worker = workers.get(i % 3);
        String tenant = "t" + i;
        admitted.add(
            callers.submit(
                () -> {
                  int n = 0;
                  AdmissionRequest request = AdmissionRequest.of(tenant, "P1", Cost.requests(1));
                  while (System.nanoTime() < end) {
                    Admission answer = worker.admit(request);
                    if (answer instanceof Admission.Admitted a) {
                      assertThat(a.grant().failedOpen()).isFalse();
                      n++;
                      request = AdmissionRequest.of(tenant, "P1", Cost.requests(1));
                    } else {
                      Admission.Deferred d = (Admission.Deferred) answer;
                      Thread.sleep(Math.max(1, d.retryAfter().toMillis()));
                      request = request.withBooking(d.booking());
                    }
                  }
                  return n;
                }));
      }
      int total = 0;
      for (Future<Integer> f : admitted) {
        total += f.get(30, TimeUnit.SECONDS);
      }
      System.out.printf(
          "LOCAL outage: 3 workers admitted %d calls in 3 s at a cap of %.0f/s%n", total, cap);
      // Three seconds at the cap from empty buckets: about 90 between the three workers (each
      // alone would admit 90, so all three 270 without the split).
      assertThat(total)
          .as("admitted by three LOCAL workers in 3 s at a cap of %s/s", cap)
          .isBetween((int) (0.7 * 3 * cap), (int) (3 * cap + 3 * 3));
    } finally {
      callers.shutdownNow();
      workers.forEach(ResilientRedisGate::close);
      server.stop();
    }
  }
}
