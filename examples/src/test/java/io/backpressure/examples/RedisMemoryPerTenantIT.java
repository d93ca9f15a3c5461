package io.backpressure.examples;

import static org.assertj.core.api.Assertions.assertThat;

import io.backpressure.core.Admission;
import io.backpressure.core.AdmissionRequest;
import io.backpressure.core.Cost;
import io.backpressure.core.Policy;
import io.backpressure.redis.RedisGate;
import io.backpressure.redis.RedisGateConfig;
import io.backpressure.redis.TestRedis;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.output.IntegerOutput;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * What a target's state costs in Redis memory, per active tenant queue and per in-flight grant,
 * read with {@code MEMORY USAGE … SAMPLES 0} on a real server (the figures in docs/deploying.md).
 */
class RedisMemoryPerTenantIT {
  private static final List<String> KEYS = List.of("config", "state", "queues", "seen", "window");

  @Test
  void stateGrowsByLessThanHalfAKilobytePerActiveQueue() {
    String url = TestRedis.shared().url();
    RedisClient client = RedisClient.create(url);
    try (StatefulRedisConnection<String, String> connection = client.connect()) {
      RedisCommands<String, String> redis = connection.sync();
      System.out.printf(
          "%-8s | %-8s | %-8s | %-10s | %-8s | %-8s | %-14s | %-9s%n",
          "queues", "config", "state", "queues", "seen", "window", "per queue (B)", "grant (B)");
      double perQueueAt10k = 0;
      for (int tenants : new int[] {100, 1_000, 10_000}) {
        String prefix = TestRedis.freshPrefix();
        String target = "memory/" + tenants;
        Policy policy =
            Policy.builder(target)
                .requestsPerSecond(1e9)
                .tokensPerSecond(1e12)
                .priority("P1", 0.5)
                .priority("P2", 0.3)
                .priority("P3", 0.2)
                .safeWindow(Duration.ofMinutes(1))
                .idleTtl(Duration.ofMinutes(10))
                .build();
        long grantBytes;
        try (RedisGate gate =
            RedisGate.connect(
                RedisGateConfig.builder(url).keyPrefix(prefix).policy(policy).build())) {
          for (int i = 0; i < tenants; i++) {
            Admission a =
                gate.admit(AdmissionRequest.of("tenant-" + i, "P1", Cost.requests(1).tokens(400)));
            gate.release(((Admission.Admitted) a).grant(), Cost.requests(1).tokens(400));
          }
          Admission inFlight =
              gate.admit(AdmissionRequest.of("tenant-0", "P1", Cost.requests(1).tokens(400)));
          String grantId = ((Admission.Admitted) inFlight).grant().id();
          grantBytes = usage(redis, prefix + ":{" + target + "}:g:" + grantId);
        }
        long[] bytes =
            KEYS.stream().mapToLong(k -> usage(redis, prefix + ":{" + target + "}:" + k)).toArray();
        double perQueue = (bytes[2] + bytes[3]) / (double) tenants;
        System.out.printf(
            "%-8d | %-8d | %-8d | %-10d | %-8d | %-8d | %-14.0f | %-9d%n",
            tenants, bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], perQueue, grantBytes);
        assertThat(grantBytes).isPositive();
        perQueueAt10k = perQueue;
      }
      assertThat(perQueueAt10k).isPositive().isLessThan(512);
    } finally {
      client.shutdown();
    }
  }

  /** {@code MEMORY USAGE key SAMPLES 0}: the key's exact footprint in bytes, 0 when absent. */
  private static long usage(RedisCommands<String, String> redis, String key) {
    StringCodec codec = StringCodec.UTF8;
    Long bytes =
        redis.dispatch(
            CommandType.MEMORY,
            new IntegerOutput<>(codec),
            new CommandArgs<>(codec).add("USAGE").addKey(key).add("SAMPLES").add(0));
    return bytes == null ? 0 : bytes;
  }
}
