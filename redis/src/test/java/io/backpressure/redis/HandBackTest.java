package io.backpressure.redis;

import static io.backpressure.redis.DecideAlike.decideAlike;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.backpressure.core.Admission;
import io.backpressure.core.Cost;
import io.backpressure.core.Dimension;
import io.backpressure.core.InMemoryGate;
import io.backpressure.core.ManualClock;
import io.backpressure.core.Policy;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * {@link RedisGate#charge}, the Redis side of the fail-open hand-back (charge.lua): it takes what
 * it is charged from L1 as the in-memory reference does, also as the first step after a state loss,
 * and refuses a bad amount without changing anything. Virtual time (the caller's clock).
 */
class HandBackTest {
  private static final Policy POLICY =
      Policy.builder("handback/model")
          .dimension(Dimension.REQUESTS, 15, 15)
          .priority("P1", 1)
          .safeWindow(Duration.ofSeconds(1))
          .build();

  @Test
  void aChargeTakesFromL1_asTheReferenceDoes() {
    ManualClock clock = new ManualClock();
    clock.advance(Duration.ofSeconds(100));
    RedisGate redis = TestRedis.shared().gate(POLICY, TimeSource.caller(clock));
    InMemoryGate memory = InMemoryGate.create(POLICY, clock);
    redis.charge(Cost.of(Dimension.REQUESTS, 20));
    memory.charge(Cost.of(Dimension.REQUESTS, 20));
    assertThat(redis.admit("t", "P1", Cost.requests(1)))
        .as("a full bucket of 15 charged 20 is 5 below empty")
        .isInstanceOf(Admission.Deferred.class);
    memory.admit("t", "P1", Cost.requests(1));
    decideAlike(redis, memory, clock, 40);
  }

  @Test
  void asTheFirstStepAfterAStateLoss_theChargeFindsTheBucketsEmpty() {
    ManualClock clock = new ManualClock();
    clock.advance(Duration.ofSeconds(100));
    RedisGate redis = TestRedis.shared().gate(POLICY, TimeSource.caller(clock));
    assertThat(redis.admit("warm", "P1", Cost.requests(1))).isInstanceOf(Admission.Admitted.class);
    clock.advance(Duration.ofSeconds(5));
    Connection connection = redis.connection();
    connection.await(
        connection
            .commands()
            .del(redis.keys().state(), redis.keys().config())
            .toCompletableFuture());

    redis.charge(Cost.of(Dimension.REQUESTS, 4));
    InMemoryGate memory = InMemoryGate.createAfterLoss(POLICY, clock);
    memory.charge(Cost.of(Dimension.REQUESTS, 4));
    assertThat(redis.policyStore().read()).as("the policy was written back").isPresent();
    decideAlike(redis, memory, clock, 40);
  }

  @Test
  void aChargeTakesL1AtMostOneBurstBelowEmpty_asTheReferenceDoes() {
    ManualClock clock = new ManualClock();
    clock.advance(Duration.ofSeconds(100));
    RedisGate redis = TestRedis.shared().gate(POLICY, TimeSource.caller(clock));
    InMemoryGate memory = InMemoryGate.create(POLICY, clock);
    redis.charge(Cost.of(Dimension.REQUESTS, 500));
    memory.charge(Cost.of(Dimension.REQUESTS, 500));
    assertThat(memory.levels().global().get(Dimension.REQUESTS))
        .as("L1 after a flood of 500 ungated calls")
        .isEqualTo(-15.0);
    clock.advance(Duration.ofMillis(2_100));
    assertThat(redis.admit("t", "P1", Cost.requests(1)))
        .as("2 s of refill at 15/s pay back one burst")
        .isInstanceOf(Admission.Admitted.class);
    memory.admit("t", "P1", Cost.requests(1));
    decideAlike(redis, memory, clock, 40);
  }

  @Test
  void aBadAmount_isRefusedNamingTheField_andChangesNothing() {
    ManualClock clock = new ManualClock();
    clock.advance(Duration.ofSeconds(100));
    RedisGate redis = TestRedis.shared().gate(POLICY, TimeSource.caller(clock));
    // A negative amount cannot even be built; a dimension the policy lacks is refused by the
    // charge.
    assertThatThrownBy(() -> Cost.of(Dimension.REQUESTS, -1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("cost.requests");
    assertThatThrownBy(() -> redis.charge(Cost.of("gpus", 1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("spent.gpus");
    decideAlike(redis, InMemoryGate.create(POLICY, clock), clock, 40);
  }

  @Test
  void theResilientGatePassesAChargeOnToRedis() {
    Policy policy =
        Policy.builder("handback/resilient")
            .dimension(Dimension.REQUESTS, 15, 15)
            .priority("P1", 1)
            .build();
    try (ResilientRedisGate gate =
        ResilientRedisGate.open(
            RedisGateConfig.builder(TestRedis.shared().url())
                .policy(policy)
                .keyPrefix(TestRedis.freshPrefix())
                .build())) {
      assertThat(gate.awaitConnected(Duration.ofSeconds(10))).isTrue();
      gate.charge(Cost.of(Dimension.REQUESTS, 20));
      assertThat(gate.admit("t", "P1", Cost.requests(1)))
          .as("a full bucket of 15 charged 20 is 5 below empty")
          .isInstanceOf(Admission.Deferred.class);
    }
  }
}
