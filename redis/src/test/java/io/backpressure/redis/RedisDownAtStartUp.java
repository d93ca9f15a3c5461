package io.backpressure.redis;

import io.backpressure.core.Policy;
import java.time.Duration;
import java.util.NoSuchElementException;

/**
 * The process of {@link StartUpLogIT}: opens a {@link ResilientRedisGate} on a server that is down,
 * waits for its first failed connection attempt and then {@code seconds} more (a retry every half
 * second), and closes the gate, logging what the gate and its client log on their own.
 *
 * <p>Arguments: url connectTimeoutMillis seconds.
 */
public final class RedisDownAtStartUp {
  private RedisDownAtStartUp() {}

  public static void main(String[] args) throws Exception {
    Policy policy =
        Policy.builder("startup/log").dimension("requests", 5, 1).priority("P1", 1).build();
    RedisGateConfig config =
        RedisGateConfig.builder(args[0])
            .policy(policy)
            .connectTimeout(Duration.ofMillis(Long.parseLong(args[1])))
            .build();
    long deadline = System.nanoTime() + Duration.ofMinutes(1).toNanos();
    try (ResilientRedisGate gate = ResilientRedisGate.open(config)) {
      while (!failedOnce(gate)) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("no connection attempt ended within a minute");
        }
        Thread.sleep(20);
      }
      Thread.sleep(Duration.ofSeconds(Long.parseLong(args[2])).toMillis());
    }
    // What the client's threads might still log after close comes before the process ends.
    Thread.sleep(1_000);
  }

  private static boolean failedOnce(ResilientRedisGate gate) {
    try {
      gate.redisGate();
      throw new IllegalStateException("connected, but nothing should listen at the URL");
    } catch (NoSuchElementException notConnected) {
      return !notConnected.getMessage().equals("not connected to Redis yet");
    }
  }
}
