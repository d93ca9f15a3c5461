package io.backpressure.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.backpressure.core.Admission;
import io.backpressure.core.AdmissionRequest;
import io.backpressure.core.Cost;
import io.backpressure.core.Gate;
import io.backpressure.core.Policy;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * {@link RedisGates} in LOCAL mode, its default, on a real server that goes away: the process
 * decides with its share of the cap, not the whole of it.
 */
class RedisGatesLocalIT {
  private static final double CAP = 20;
  private static final Duration OUTAGE = Duration.ofMillis(1_500);

  @Test
  void twoProcessesEachDecideWithHalfTheCapWhileRedisIsDown() throws Exception {
    TestRedis server = TestRedis.owned();
    Policy policy =
        Policy.builder("local/gates").dimension("requests", CAP, 1).priority("P1", 1).build();
    RedisGateConfig.Builder options =
        RedisGateConfig.builder(server.url()).keyPrefix(TestRedis.freshPrefix());
    try (RedisGates first = RedisGates.connect(options);
        RedisGates second = RedisGates.connect(options)) {
      first.gate(policy);
      Gate gate = second.gate(policy.target());
      assertThat(second.liveWorkers(policy.target())).isEqualTo(2);
      server.stop();

      int admitted = 0;
      long start = System.nanoTime();
      long end = start + OUTAGE.toNanos();
      AdmissionRequest request = AdmissionRequest.of("acme", "P1", Cost.requests(1));
      while (System.nanoTime() < end) {
        Admission answer = gate.admit(request);
        if (answer instanceof Admission.Admitted a) {
          assertThat(a.grant().failedOpen()).as("decided locally, not ungated").isFalse();
          admitted++;
          request = AdmissionRequest.of("acme", "P1", Cost.requests(1));
        } else {
          Admission.Deferred d = (Admission.Deferred) answer;
          Thread.sleep(Math.max(1, Math.min(d.retryAfter().toMillis(), 50)));
          request = request.withBooking(d.booking());
        }
      }
      double seconds = (System.nanoTime() - start) / 1e9;
      System.out.printf(
          "RedisGates LOCAL outage: one of two processes admitted %d calls in %.2f s at a cap of"
              + " %.0f/s%n",
          admitted, seconds, CAP);
      // Half the cap from empty buckets: about 15 in 1.5 s; the whole cap would be about 30.
      assertThat(admitted)
          .as("admitted in %.2f s by one of two LOCAL processes at a cap of %s/s", seconds, CAP)
          .isBetween(1, (int) Math.ceil(CAP / 2 * seconds) + 2);
    } finally {
      server.stop();
    }
  }
}
