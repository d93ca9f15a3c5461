package io.backpressure.admin;

import io.backpressure.core.Dimension;
import io.backpressure.core.ManualClock;
import io.backpressure.core.Policy;
import io.backpressure.redis.RedisGate;
import io.backpressure.redis.RedisGateConfig;
import io.backpressure.redis.TestRedis;
import io.backpressure.redis.TimeSource;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The target {@link #TARGET} on the shared test Redis under a key prefix of its own: gates that
 * decide on it, and the {@code admin} command run against it, its output captured.
 */
final class AdminTarget {
  static final String TARGET = "openai/gpt-4o";

  private final String prefix = TestRedis.freshPrefix();

  /** The key prefix this target's keys are under, fresh for each instance. */
  String prefix() {
    return prefix;
  }

  /** A gate's configuration on the shared test Redis, under this prefix, with {@code policy}. */
  RedisGateConfig.Builder config(Policy policy) {
    return RedisGateConfig.builder(TestRedis.shared().url()).keyPrefix(prefix).policy(policy);
  }

  /** A gate connected with {@link #config}, on the server's clock. */
  RedisGate gate(Policy policy) {
    return RedisGate.connect(config(policy).build());
  }

  /** A gate connected with {@link #config}, on {@code clock}'s time. */
  RedisGate gate(Policy policy, ManualClock clock) {
    return RedisGate.connect(config(policy).timeSource(TimeSource.caller(clock)).build());
  }

  /** Runs {@code admin} with {@code args}, then the server's URL and this prefix. */
  AdminCommandTest.Run admin(String... args) {
    List<String> all = new ArrayList<>(List.of(args));
    all.addAll(List.of("--redis", TestRedis.shared().url(), "--key-prefix", prefix));
    return AdminCommandTest.run(all.toArray(String[]::new));
  }

  /** Runs {@code admin show} of {@link #TARGET} with {@code more} options. */
  AdminCommandTest.Run show(String... more) {
    List<String> all = new ArrayList<>(List.of("show", "--target", TARGET));
    all.addAll(List.of(more));
    return admin(all.toArray(String[]::new));
  }

  /**
   * A policy of {@link #TARGET}: 100 requests per second, one class P1, and an adaptive concurrency
   * limit in [2, 16] with a 5 s latency target.
   */
  static Policy adaptive() {
    return Policy.builder(TARGET)
        .dimension(Dimension.REQUESTS, 100, 100)
        .priority("P1", 1)
        .adaptiveConcurrency(2, 16, Duration.ofSeconds(5))
        .build();
  }
}
