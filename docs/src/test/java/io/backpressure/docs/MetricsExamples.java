package io.backpressure.docs;

import io.backpressure.core.Gate;
import io.backpressure.core.InMemoryGate;
import io.backpressure.core.Policy;
import io.backpressure.metrics.MeteredGate;
import io.backpressure.redis.ResilientRedisGate;
import io.micrometer.core.instrument.MeterRegistry;

/** The examples of {@code docs/metrics.md}, run by {@link MetricsExamplesTest}. */
final class MetricsExamples {
  private MetricsExamples() {}

  static Gate metered(Policy policy, MeterRegistry registry) {
    // metered: begin
    Gate gate = MeteredGate.builder(InMemoryGate.create(policy), registry).build();
    // metered: end
    return gate;
  }

  /** {@code gate} metered; the caller keeps {@code gate} to close it. */
  static Gate meteredRedis(ResilientRedisGate gate, Policy policy, MeterRegistry registry) {
    // metered-redis: begin
    Gate metered =
        MeteredGate.builder(gate.failOpen(), registry) // counts the calls decided without Redis
            .policy(() -> gate.connected() ? gate.redisGate().policy() : policy)
            .build();
    // metered-redis: end
    return metered;
  }
}
