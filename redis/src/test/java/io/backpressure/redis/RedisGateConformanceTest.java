package io.backpressure.redis;

import io.backpressure.core.Gate;
import io.backpressure.core.GateConformanceSuite;
import io.backpressure.core.GateLevels;
import io.backpressure.core.ManualClock;
import io.backpressure.core.Policy;
import io.backpressure.core.QueueState;
import io.backpressure.core.QuotaAdmin;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;

/**
 * The core's conformance suite, unchanged, on the Redis state: virtual time reaches the scripts as
 * the caller's time, and every gate gets a key prefix of its own.
 *
 * <p>This class runs the suite's JUnit tests, two at a time (the module's surefire configuration
 * caps the threads at two): each runs on a clock and a key prefix of its own, so none can see
 * another's state, and every step waits for a round trip, which leaves the client's and the
 * server's core idle in turn when one test runs alone. The suite's jqwik properties run in {@link
 * RedisGateConformancePropertiesTest}, so that the other test JVM runs them meanwhile.
 */
@OneEngine("junit-jupiter")
@Execution(ExecutionMode.CONCURRENT)
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
  protected long concurrencyLimit(Gate gate) {
    return ((RedisGate) gate).policyStore().concurrencyLimit();
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

  /**
   * The long-run share tests run 150 virtual seconds instead of 300, for the same reason: each
   * still measures its shares over more than a hundred seconds and thousands of decisions, with the
   * same assertions. The in-memory run of the suite keeps the full length, and {@code
   * DifferentialTest} checks that the script decides as the in-memory rule does, step by step.
   */
  @Override
  protected double shareSeconds() {
    return 150;
  }
}
