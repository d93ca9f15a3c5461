package io.backpressure.examples;

import static org.assertj.core.api.Assertions.assertThat;

import io.backpressure.redis.RedisGate;
import io.backpressure.redis.RedisGateConfig;
import io.backpressure.redis.TestRedis;
import org.junit.jupiter.api.Test;

/** Runs the README's Redis example against a real server. */
class RedisQuickstartIT {

  @Test
  void theCallIsGatedThroughRedisAndThePolicyIsStoredThere() throws Exception {
    String url = TestRedis.shared().url();

    String out = InMemoryQuickstartIT.StdOut.capture(() -> RedisQuickstart.main(new String[] {url}));

    assertThat(out.strip()).isEqualTo("admitted");
    try (RedisGate stored = RedisGate.connect(RedisGateConfig.builder(url).target("openai/gpt-4o").build())) {
      assertThat(stored.policy().priorityNames()).containsExactly("P1", "P2", "P3");
      assertThat(stored.policy().refillRate(stored.policy().dimensionIndex("requests"))).isEqualTo(60.0);
    }
  }
}
