package io.backpressure.eval.real;

import io.backpressure.core.FailOpenGate;
import io.backpressure.redis.RedisGateConfig;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * Where real mode keeps the gate's state in Redis, as one string handed to worker processes: a
 * Redis URL ({@code --redis}), or {@code cluster:HOST:PORT,…} for the seed nodes of a Redis Cluster
 * ({@code --redis-cluster}), optionally preceded by {@code when-unavailable=MODE;} for a fail-open
 * mode other than the default OPEN ({@code --when-unavailable}). Stateless.
 */
public final class RedisLocation {
  private static final String CLUSTER = "cluster:";
  private static final String MODE = "when-unavailable=";

  private RedisLocation() {}

  /** The location of a cluster reached from {@code seeds}. */
  public static String cluster(List<String> seeds) {
    return CLUSTER + String.join(",", seeds);
  }

  /** {@code location} whose gates decide as {@code mode} says while Redis does not answer. */
  public static String withMode(String location, FailOpenGate.Mode mode) {
    return mode == FailOpenGate.Mode.OPEN
        ? location
        : MODE + mode.name().toLowerCase(Locale.ROOT) + ";" + location;
  }

  /** The fail-open mode {@code location} asks for (OPEN unless it says otherwise). */
  static FailOpenGate.Mode mode(String location) {
    if (!location.startsWith(MODE)) {
      return FailOpenGate.Mode.OPEN;
    }
    return FailOpenGate.Mode.valueOf(
        location.substring(MODE.length(), location.indexOf(';')).toUpperCase(Locale.ROOT));
  }

  private static String withoutMode(String location) {
    return location.startsWith(MODE) ? location.substring(location.indexOf(';') + 1) : location;
  }

  /**
   * A configuration builder for {@code location} (a URL, or a {@linkplain #cluster cluster}), with
   * its fail-open mode.
   */
  public static RedisGateConfig.Builder builder(String location) {
    String where = withoutMode(location);
    RedisGateConfig.Builder builder =
        where.startsWith(CLUSTER)
            ? RedisGateConfig.builder()
                .cluster(Arrays.asList(where.substring(CLUSTER.length()).split(",")))
            : RedisGateConfig.builder(where);
    return builder.whenUnavailable(mode(location));
  }

  /** The command-line options that give {@code location}. */
  public static String options(String location) {
    String where = withoutMode(location);
    String mode =
        mode(location) == FailOpenGate.Mode.OPEN
            ? ""
            : " --when-unavailable " + mode(location).name().toLowerCase(Locale.ROOT);
    return (where.startsWith(CLUSTER)
            ? "--redis-cluster " + where.substring(CLUSTER.length())
            : "--redis " + where)
        + mode;
  }
}
