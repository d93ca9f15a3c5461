package io.backpressure.redis;

import io.backpressure.core.Gate;
import io.backpressure.core.GateConformanceSuite;
import io.backpressure.core.GateLevels;
import io.backpressure.core.ManualClock;
import io.backpressure.core.Policy;
import io.backpressure.core.QueueState;
import io.backpressure.core.QuotaAdmin;

/**
 * The core's conformance suite, unchanged, on the Redis state: virtual time reaches the scripts as
 * the caller's time, and every gate gets a key prefix of its own.
 */
class RedisGateConformanceTest extends GateConformanceSuite {

  @Override
  protected Gate newGate(Policy policy, ManualClock clock) {
    return TestRedis.shared().gate(policy, TimeSource.caller(clock));
  }

  @Override
  protected GateLevels levels(Gate gate) {
    return ((RedisGate) gate).policyStore().levels().orElseThrow();
  }

  @Override
  protected QueueState queueState(Gate gate, String tenant, String priority) {
    return ((RedisGate) gate).policyStore().queueState(tenant, priority).orElse(null);
  }

  @Override
  protected QuotaAdmin quotaAdmin(Gate gate) {
    return ((RedisGate) gate).policyStore();
  }

  @Override
  protected long expiredLeases(Gate gate) {
    return ((RedisGate) gate).policyStore().expiredLeases();
  }

  @Override
  protected void updatePolicy(Gate gate, Policy policy) {
    ((RedisGate) gate).policyStore().apply(policy);
  }

  /**
   * Every admission is a network round trip here (~0.1 ms instead of ~1 µs in memory), so the
   * random cap-respect traffic runs 600 virtual seconds per try instead of 10 000: each try still
   * sees tens of thousands of decisions and many tenants arriving, backlogging and expiring. The
   * assertion (every one-second window within cap + burst) is unchanged.
   */
  @Override
  protected double capRespectSeconds() {
    return 600;
  }
}
