package io.backpressure.redis;

import io.backpressure.core.Policy;
import java.time.Duration;

/**
 * A process of {@link StartUpLogIT}: {@code attempts} connections opened one after the other to a
 * server that is down, each failing and shutting its client down, with a connect timeout of {@code
 * connectTimeoutMillis}, short enough that Lettuce's handshake timeout fires while a failed
 * attempt's client shuts down, as it does at the default on a loaded machine. What the client's
 * threads log is the process's output.
 *
 * <p>Arguments: url connectTimeoutMillis attempts.
 */
public final class ConnectAttempts {
  private ConnectAttempts() {}

  public static void main(String[] args) throws Exception {
    Policy policy =
        Policy.builder("startup/attempts").dimension("requests", 5, 1).priority("P1", 1).build();
    RedisGateConfig config =
        RedisGateConfig.builder(args[0])
            .policy(policy)
            .connectTimeout(Duration.ofMillis(Long.parseLong(args[1])))
            .build();
    int attempts = Integer.parseInt(args[2]);
    int failed = 0;
    for (int i = 0; i < attempts; i++) {
      try {
        Connection.open(config).close();
      } catch (RuntimeException expected) {
        failed++;
      }
    }
    if (failed != attempts) {
      throw new IllegalStateException(
          (attempts - failed) + " of " + attempts + " attempts connected to a server that is down");
    }
    // What the client's threads might still log comes before the process ends.
    Thread.sleep(1_000);
  }
}
