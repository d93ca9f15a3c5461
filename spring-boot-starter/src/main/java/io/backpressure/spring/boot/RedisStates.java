package io.backpressure.spring.boot;

import io.backpressure.core.Gate;
import io.backpressure.core.Policy;
import io.backpressure.redis.RedisGateConfig;
import io.backpressure.redis.ResilientRedisGate;
import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.util.List;
import java.util.function.Consumer;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;

/**
 * Connects each target's gate to Redis. Every reference to the redis module lives here, and this
 * class is loaded only when {@code backpressure.redis.*} names a server, so applications with
 * in-memory state need not have that module.
 */
final class RedisStates {
  /**
   * How long start-up waits for the first connection to Redis (a first connection includes the
   * client's own start and the scripts' loading, which take seconds on a loaded machine); after it
   * the fail mode decides until Redis answers.
   */
  static final Duration STARTUP_WAIT = Duration.ofSeconds(10);

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
   * The {@link ResilientRedisGate} of {@code policy}'s target with the configured fail mode: it
   * connects in the background and never fails start-up for an unreachable Redis; start-up waits up
   * to {@link #STARTUP_WAIT} for the first connection, so that an application whose Redis is there
   * starts gated. The stored policy wins over {@code policy} when the target already has one. With
   * several cluster seeds every one is given to the client, which tries them in order.
   *
   * @param metering wraps the gate in meters reading the stored policy, or {@code null} for none
   * @param opened receives the gate, to be closed with the application context
   */
  static Gate gate(
      BackpressureProperties properties,
      Policy policy,
      GateMetering metering,
      Consumer<AutoCloseable> opened) {
    ResilientRedisGate gate = ResilientRedisGate.open(config(properties, policy));
    opened.accept(gate);
    gate.awaitConnected(STARTUP_WAIT);
    return metering == null
        ? gate
        : metering.meter(gate, () -> gate.connected() ? gate.redisGate().policy() : policy);
  }

  private static RedisGateConfig config(BackpressureProperties properties, Policy policy) {
    BackpressureProperties.Redis redis = properties.getRedis();
    if (redis.getUrl() != null) {
      return config(
          properties, RedisGateConfig.builder(redis.getUrl()), policy, "backpressure.redis.url");
    }
    List<String> nodes = redis.getClusterNodes();
    String withScheme = nodes.stream().filter(n -> n.contains("://")).findFirst().orElse(null);
    List<String> seeds = nodes.stream().map(RedisStates::hostAndPort).toList();
    RedisGateConfig.Builder builder =
        withScheme == null ? RedisGateConfig.builder() : RedisGateConfig.builder(withScheme);
    return config(properties, builder.cluster(seeds), policy, "backpressure.redis.cluster-nodes");
  }

  /** A cluster node given as {@code host:port} or as a URL, as {@code host:port}. */
  private static String hostAndPort(String node) {
    if (!node.contains("://")) {
      return node;
    }
    try {
      URI uri = new URI(node);
      return uri.getHost() + ":" + uri.getPort();
    } catch (URISyntaxException e) {
      throw new InvalidConfigurationPropertyValueException(
          "backpressure.redis.cluster-nodes",
          "(not shown)",
          "each node must be host:port or a redis:// URL");
    }
  }

  private static RedisGateConfig config(
      BackpressureProperties properties,
      RedisGateConfig.Builder builder,
      Policy policy,
      String property) {
    BackpressureProperties.Redis redis = properties.getRedis();
    Duration commandTimeout = redis.getCommandTimeout();
    if (properties.getStateTimeout() != null
        && properties.getStateTimeout().compareTo(commandTimeout) < 0) {
      commandTimeout = properties.getStateTimeout();
    }
    try {
      return builder
          .policy(policy)
          .whenUnavailable(properties.getFailMode())
          .commandTimeout(commandTimeout)
          .connectTimeout(redis.getConnectTimeout())
          .keyPrefix(redis.getKeyPrefix())
          .build();
    } catch (IllegalArgumentException e) {
      // RedisGateConfig masks credentials in its messages; the value itself is never echoed.
      throw new InvalidConfigurationPropertyValueException(property, "(not shown)", e.getMessage());
    }
  }
}
