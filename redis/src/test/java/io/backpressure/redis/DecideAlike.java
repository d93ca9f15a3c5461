package io.backpressure.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.backpressure.core.Admission;
import io.backpressure.core.AdmissionRequest;
import io.backpressure.core.Cost;
import io.backpressure.core.InMemoryGate;
import io.backpressure.core.ManualClock;
import java.time.Duration;

/** Compares a Redis gate's answers with an in-memory reference's, call by call. */
final class DecideAlike {
  private DecideAlike() {}

  /**
   * Both gates answer the same {@code steps} calls alike (kind and Δ): one request of class P1
   * each, from three tenants in turn, 37 ms apart on {@code clock}.
   */
  static void decideAlike(RedisGate redis, InMemoryGate memory, ManualClock clock, int steps) {
    for (int step = 0; step < steps; step++) {
      AdmissionRequest request = AdmissionRequest.of("t" + step % 3, "P1", Cost.requests(1));
      Admission fromRedis = redis.admit(request);
      Admission fromMemory = memory.admit(request);
      assertThat(fromRedis.getClass())
          .as("%s, step %d", redis.target(), step)
          .isEqualTo(fromMemory.getClass());
      if (fromRedis instanceof Admission.Deferred d) {
        assertThat(d.retryAfter())
            .as("Δ at step %d of %s", step, redis.target())
            .isEqualTo(((Admission.Deferred) fromMemory).retryAfter());
      }
      clock.advance(Duration.ofMillis(37));
    }
  }
}
