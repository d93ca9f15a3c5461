package io.backpressure.eval;

import io.backpressure.redis.RedisGateConfig;
import java.util.Arrays;
import java.util.List;

/**
 * Where real mode keeps the gate's state in Redis, as one string handed to worker processes: a
 * Redis URL ({@code --redis}), or {@code cluster:HOST:PORT,…} for the seed nodes of a Redis
 * Cluster ({@code --redis-cluster}). Stateless.
 */
final class RedisLocation {
  private static final String CLUSTER = "cluster:";

  private RedisLocation() {}

  /** The location of a cluster reached from {@code seeds}. */
  static String cluster(List<String> seeds) {
    return CLUSTER + String.join(",", seeds);
  }

  /** A configuration builder for {@code location} (a URL, or a {@linkplain #cluster cluster}). */
  static RedisGateConfig.Builder builder(String location) {
    if (location.startsWith(CLUSTER)) {
      return RedisGateConfig.builder().cluster(Arrays.asList(location.substring(CLUSTER.length()).split(",")));
    }
    return RedisGateConfig.builder(location);
  }

  /** The command-line options that give {@code location}. */
  static String options(String location) {
    return location.startsWith(CLUSTER) ? "--redis-cluster " + location.substring(CLUSTER.length())
        : "--redis " + location;
  }
}
