package io.backpressure.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.backpressure.core.Cost;
import io.backpressure.core.GateLevels;
import io.backpressure.core.Grant;
import io.backpressure.core.InMemoryGate;
import io.backpressure.core.ManualClock;
import io.backpressure.core.Policy;

/**
 * A Redis gate beside the in-memory gate it must match: one policy, one virtual clock (the Redis
 * gate takes its time from the caller), the same calls on both, and their states read side by side.
 *
 * @param memory the reference
 * @param redis the gate compared with it, on the shared test server under a fresh key prefix
 */
record TwinGates(InMemoryGate memory, RedisGate redis) {

  /** Both gates deciding with the rebuilt rule ({@link RedisGateConfig#fairQueuing()}). */
  static TwinGates fair(Policy policy, ManualClock clock) {
    return new TwinGates(InMemoryGate.createFairQueuing(policy, clock), fairRedis(policy, clock));
  }

  /** Both gates deciding with the nested buckets. */
  static TwinGates nested(Policy policy, ManualClock clock) {
    return new TwinGates(
        InMemoryGate.create(policy, clock),
        TestRedis.shared().gate(policy, TimeSource.caller(clock)));
  }

  /**
   * A Redis gate on the shared test server, under a fresh key prefix, deciding with the rebuilt
   * rule on {@code clock}'s time.
   */
  static RedisGate fairRedis(Policy policy, ManualClock clock) {
    return RedisGate.over(
        TestRedis.shared().connection(),
        false,
        TestRedis.shared()
            .config()
            .policy(policy)
            .timeSource(TimeSource.caller(clock))
            .fairQueuing(true)
            .build());
  }

  /**
   * Releases one call's grants, {@code pair[0]} in memory and {@code pair[1]} in Redis, with the
   * same actual cost, and asserts that both answer alike.
   */
  void release(int step, Grant[] pair, Cost actual) {
    boolean inRedis = redis.release(pair[1], actual);
    assertThat(inRedis).as("release at step %d", step).isEqualTo(memory.release(pair[0], actual));
  }

  /** Asserts that both levels count the same active queues and age them alike, class by class. */
  static void assertSameQueues(int step, GateLevels memory, GateLevels redis) {
    assertThat(redis.activeQueues())
        .as("active queues after step %d", step)
        .isEqualTo(memory.activeQueues());
    assertThat(redis.queueAges())
        .as("queue ages after step %d", step)
        .isEqualTo(memory.queueAges());
  }
}
