package io.backpressure.docs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.backpressure.core.Cost;
import io.backpressure.core.Gate;
import io.backpressure.core.Policy;
import io.backpressure.metrics.MeteredGate;
import io.backpressure.redis.RedisGateConfig;
import io.backpressure.redis.ResilientRedisGate;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.net.ServerSocket;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class MetricsExamplesTest {

  @Test
  void aMeteredGateCountsItsAdmissionsByOutcome() {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    Gate gate =
        MetricsExamples.metered(
            Policy.builder("openai/gpt-4o").requestsPerSecond(1).priority("P1", 1).build(),
            registry);
    gate.admit("acme", "P1", Cost.requests(1));
    gate.admit("acme", "P1", Cost.requests(1));
    assertThat(
            registry.find("backpressure.admissions").tag("outcome", "admitted").counter().count())
        .isEqualTo(1);
    assertThat(
            registry.find("backpressure.admissions").tag("outcome", "deferred").counter().count())
        .isEqualTo(1);
  }

  /**
   * A ResilientRedisGate whose Redis is down, metered as the guide shows: the call decided without
   * Redis is counted, under the configured policy.
   */
  @Test
  void aMeteredResilientRedisGateCountsTheCallsDecidedWithoutRedis() throws Exception {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    Policy policy = Policy.builder("openai/gpt-4o").requestsPerSecond(1).priority("P1", 1).build();
    try (ResilientRedisGate redis = ResilientRedisGate.open(downRedis(policy))) {
      Gate gate = MetricsExamples.meteredRedis(redis, policy, registry);

      gate.admit("acme", "P1", Cost.requests(1));

      assertThat(registry.find("backpressure.state.ungated").functionCounter().count())
          .isEqualTo(1);
      assertThat(
              registry.find("backpressure.admissions").counters().stream()
                  .mapToDouble(Counter::count)
                  .sum())
          .as("decisions counted")
          .isEqualTo(1);
    }
  }

  /** The error for a ResilientRedisGate metered without a policy names the builder's method. */
  @Test
  void aResilientRedisGateMeteredWithoutAPolicyIsRefusedNamingTheMethod() throws Exception {
    Policy policy = Policy.builder("openai/gpt-4o").requestsPerSecond(1).priority("P1", 1).build();
    try (ResilientRedisGate redis = ResilientRedisGate.open(downRedis(policy))) {
      assertThatThrownBy(() -> MeteredGate.builder(redis, new SimpleMeterRegistry()).build())
          .isInstanceOf(IllegalStateException.class)
          .hasMessage("policy: a ResilientRedisGate needs builder.policy(source)");
    }
  }

  /** A configuration of {@code policy} on a port nothing listens on. */
  private static RedisGateConfig downRedis(Policy policy) throws IOException {
    int port;
    try (ServerSocket socket = new ServerSocket(0)) {
      port = socket.getLocalPort();
    }
    return RedisGateConfig.builder("redis://127.0.0.1:" + port)
        .policy(policy)
        .connectTimeout(Duration.ofMillis(200))
        .build();
  }
}
