package io.backpressure.admin;

import static io.backpressure.admin.AdminTarget.TARGET;
import static org.assertj.core.api.Assertions.assertThat;

import io.backpressure.core.Admission;
import io.backpressure.core.Cost;
import io.backpressure.core.FailOpenGate;
import io.backpressure.core.ManualClock;
import io.backpressure.core.Policy;
import io.backpressure.metrics.MeteredGate;
import io.backpressure.redis.RedisGate;
import io.backpressure.redis.TimeSource;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * A metered Redis gate behind a fail-open wrapper, wired as the metrics README shows: the gauges
 * read the caps and levels from Redis, and follow an {@code admin set}.
 */
class MeteredRedisGateTest {
  private final AdminTarget target = new AdminTarget();

  @Test
  void gaugesReadCapsAndLevelsFromRedisAndFollowAnAdminSet() {
    Policy policy =
        Policy.builder(TARGET)
            .requestsPerSecond(100)
            .tokensPerSecond(10_000)
            .priority("P1", 0.7)
            .priority("P2", 0.3)
            .build();
    MeterRegistry registry = new SimpleMeterRegistry();
    try (RedisGate redis =
        RedisGate.connect(
            target
                .config(policy)
                .timeSource(TimeSource.caller(new ManualClock()))
                .commandTimeout(Duration.ofSeconds(5))
                .build())) {
      MeteredGate gate =
          MeteredGate.builder(FailOpenGate.around(redis).build(), registry)
              .policy(() -> redis.policyStore().policy())
              .levels(() -> redis.policyStore().levels().orElse(null))
              .levelsMaxAge(Duration.ofNanos(1))
              .build();
      assertThat(gate.admit("acme", "P1", Cost.requests(1).tokens(2_500)))
          .isInstanceOf(Admission.Admitted.class);

      assertThat(gauge(registry, "backpressure.bucket.level", "tokens")).isEqualTo(7_500);
      assertThat(gauge(registry, "backpressure.bucket.utilization", "tokens")).isEqualTo(0.25);
      assertThat(registry.get("backpressure.queues.active").tag("priority", "P1").gauge().value())
          .isEqualTo(1);
      assertThat(
              registry
                  .get("backpressure.admissions")
                  .tags("priority", "P1", "outcome", "admitted")
                  .counter()
                  .count())
          .isEqualTo(1);
      assertThat(registry.get("backpressure.state.failures").functionCounter().count()).isZero();

      AdminCommandTest.Run set =
          target.admin("set", "cap", "tokens", "--per-second", "20000", "--target", TARGET);
      assertThat(set.code()).as(set.err()).isZero();
      assertThat(gauge(registry, "backpressure.cap", "tokens")).isEqualTo(20_000);
    }
  }

  @Test
  void gaugesReadAnAdaptiveLimitAndTheLatencyItMeasuredFromRedis() {
    MeterRegistry registry = new SimpleMeterRegistry();
    ManualClock clock = new ManualClock(1_000_000_000_000L);
    try (RedisGate redis =
        RedisGate.connect(
            target
                .config(AdminTarget.adaptive())
                .timeSource(TimeSource.caller(clock))
                .commandTimeout(Duration.ofSeconds(5))
                .build())) {
      MeteredGate gate =
          MeteredGate.builder(FailOpenGate.around(redis).build(), registry)
              .policy(() -> redis.policyStore().policy())
              .concurrencyLimit(redis.policyStore()::concurrencyLimit)
              .measuredLatency(redis.policyStore()::measuredLatencyMicros)
              .build();
      assertThat(registry.get("backpressure.limit.latency").gauge().value()).isZero();

      Admission.Admitted call = (Admission.Admitted) gate.admit("acme", "P1", Cost.requests(1));
      clock.advance(Duration.ofMillis(250));
      gate.release(call.grant(), Cost.requests(1));

      // Released within the latency target: the limit grows by one.
      assertThat(registry.get("backpressure.limit.concurrency").gauge().value()).isEqualTo(3);
      assertThat(registry.get("backpressure.limit.latency").gauge().value()).isEqualTo(0.25);
    }
  }

  private static double gauge(MeterRegistry registry, String name, String dimension) {
    return registry.get(name).tag("dimension", dimension).gauge().value();
  }
}
