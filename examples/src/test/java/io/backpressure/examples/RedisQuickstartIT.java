package io.backpressure.examples;

import static org.assertj.core.api.Assertions.assertThat;

import io.backpressure.redis.RedisGate;
import io.backpressure.redis.RedisGateConfig;
import io.backpressure.redis.TestRedis;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import org.junit.jupiter.api.Test;

/** Runs the README's Redis example against a real server. */
class RedisQuickstartIT {

  @Test
  void theCallIsGatedThroughRedisAndThePolicyIsStoredThere() throws Exception {
    String url = TestRedis.shared().url();
    warmUpTheClient(url);

    String out =
        InMemoryQuickstartIT.StdOut.capture(() -> RedisQuickstart.main(new String[] {url}));

    assertThat(out.strip()).isEqualTo("admitted");
    try (RedisGate stored =
        RedisGate.connect(RedisGateConfig.builder(url).target("openai/gpt-4o").build())) {
      assertThat(stored.policy().priorityNames()).containsExactly("P1", "P2", "P3");
      assertThat(
              stored
                  .policy()
                  .dimensions()
                  .get(stored.policy().dimensionIndex("requests"))
                  .capPerSecond())
          .isEqualTo(60.0);
    }
  }

  /**
   * Loads the Redis client's classes once, so the example's two-second wait for its first
   * connection measures the connection, not a cold JVM on a loaded machine.
   */
  private static void warmUpTheClient(String url) {
    RedisClient client = RedisClient.create(url);
    try (StatefulRedisConnection<String, String> connection = client.connect()) {
      connection.sync().ping();
    } finally {
      client.shutdown();
    }
  }
}
