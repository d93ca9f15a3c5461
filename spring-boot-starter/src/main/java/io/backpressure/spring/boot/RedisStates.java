package io.backpressure.spring.boot;

import io.backpressure.core.Dimension;
import io.backpressure.core.FailOpenGate;
import io.backpressure.core.Gate;
import io.backpressure.core.Policy;
import io.backpressure.redis.RedisGate;
import io.backpressure.redis.RedisGateConfig;
import java.util.List;
import java.util.function.Consumer;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;

/**
 * Connects each target's gate to Redis. Every reference to the redis module lives here, and this
 * class is loaded only when {@code backpressure.redis.*} names a server, so applications with
 * in-memory state need not have that module.
 */
final class RedisStates {
  private RedisStates() {}

  static boolean onClassPath() {
    try {
      Class.forName("io.backpressure.redis.RedisGate", false, RedisStates.class.getClassLoader());
      return true;
    } catch (ClassNotFoundException | LinkageError e) {
      return false;
    }
  }

  /**
   * The Redis gate of {@code policy}'s target inside a {@link FailOpenGate} with the configured fail
   * mode. The stored policy wins over {@code policy} when the target already has one.
   *
   * @param metering wraps the gate in meters reading the stored policy, or {@code null} for none
   * @param opened receives the connection, to be closed with the application context
   */
  static Gate gate(BackpressureProperties properties, Policy policy, GateMetering metering,
      Consumer<AutoCloseable> opened) {
    RedisGate store = connect(properties.getRedis(), policy);
    opened.accept(store);
    FailOpenGate.Builder failOpen = FailOpenGate.around(store).mode(properties.getFailMode());
    if (properties.getStateTimeout() != null) {
      failOpen.timeout(properties.getStateTimeout());
    }
    if (properties.getFailMode() == FailOpenGate.Mode.LOCAL) {
      failOpen.localFallback(scaled(store.policy(), properties.getLocalShare()));
    }
    Gate gate = failOpen.build();
    return metering == null ? gate : metering.meter(gate, store::policy);
  }

  private static RedisGate connect(BackpressureProperties.Redis redis, Policy policy) {
    if (redis.getUrl() != null) {
      return RedisGate.connect(config(redis, redis.getUrl(), false, policy, "backpressure.redis.url"));
    }
    List<String> seeds = redis.getClusterNodes();
    RuntimeException last = null;
    for (int i = 0; i < seeds.size(); i++) {
      String seed = seeds.get(i).contains("://") ? seeds.get(i) : "redis://" + seeds.get(i);
      RedisGateConfig config = config(redis, seed, true, policy, "backpressure.redis.cluster-nodes[" + i + "]");
      try {
        return RedisGate.connect(config);
      } catch (RuntimeException unreachable) {
        last = unreachable;
      }
    }
    throw last;
  }

  private static RedisGateConfig config(BackpressureProperties.Redis redis, String url, boolean cluster, Policy policy,
      String property) {
    try {
      return RedisGateConfig.builder(url)
          .policy(policy)
          .cluster(cluster)
          .commandTimeout(redis.getCommandTimeout())
          .connectTimeout(redis.getConnectTimeout())
          .keyPrefix(redis.getKeyPrefix())
          .build();
    } catch (IllegalArgumentException e) {
      // RedisGateConfig masks credentials in its messages; the value itself is never echoed.
      throw new InvalidConfigurationPropertyValueException(property, "(not shown)", e.getMessage());
    }
  }

  /** {@code policy} with every cap and burst multiplied by {@code share}. */
  private static Policy scaled(Policy policy, double share) {
    Policy scaled = policy;
    for (Dimension d : policy.dimensions()) {
      scaled = scaled.withDimension(new Dimension(d.name(), d.capPerSecond() * share, d.burst() * share));
    }
    return scaled;
  }
}
