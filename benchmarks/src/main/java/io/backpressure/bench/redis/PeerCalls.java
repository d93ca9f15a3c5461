package io.backpressure.bench.redis;

import io.backpressure.admin.RedisTlsOptions;
import io.github.bucket4j.BucketConfiguration;
import io.github.bucket4j.distributed.AsyncBucketProxy;
import io.github.bucket4j.distributed.proxy.AsyncProxyManager;
import io.github.bucket4j.redis.lettuce.Bucket4jLettuce;
import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.codec.StringCodec;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The calls the admission is measured against, over a plain Lettuce client of their own (standalone
 * or cluster, as the gate's): a bare {@code INCR}, and bucket4j's Lettuce backend with one
 * bandwidth per target (its compare-and-swap proxy manager, the Redis rate limiter Java users would
 * otherwise pick). Caps never bind: each {@code tryConsume(1)} succeeds. Thread-safe.
 */
final class PeerCalls implements AutoCloseable {
  private final AbstractRedisClient client;
  private final StatefulConnection<String, String> strings;
  private final StatefulConnection<byte[], byte[]> bytes;
  private final RedisClusterAsyncCommands<String, String> commands;
  private final String[] counters;
  private final AsyncBucketProxy[] buckets;

  private PeerCalls(
      AbstractRedisClient client,
      StatefulConnection<String, String> strings,
      RedisClusterAsyncCommands<String, String> commands,
      StatefulConnection<byte[], byte[]> bytes,
      AsyncProxyManager<byte[]> proxies,
      List<String> targets) {
    this.client = client;
    this.strings = strings;
    this.commands = commands;
    this.bytes = bytes;
    this.counters = new String[targets.size()];
    this.buckets = new AsyncBucketProxy[targets.size()];
    BucketConfiguration oneBandwidth =
        BucketConfiguration.builder()
            .addLimit(
                limit ->
                    limit
                        .capacity(1_000_000_000L)
                        .refillGreedy(1_000_000_000L, Duration.ofSeconds(1)))
            .build();
    for (int t = 0; t < targets.size(); t++) {
      // The target's hash tag keeps each peer key on the node of the target's own keys.
      counters[t] = "bench:{" + targets.get(t) + "}:incr";
      buckets[t] =
          proxies
              .builder()
              .build(
                  ("bench:{" + targets.get(t) + "}:bucket4j").getBytes(StandardCharsets.UTF_8),
                  oneBandwidth);
    }
  }

  /** Over a standalone server, with the TLS files given (used only for a rediss:// URL). */
  static PeerCalls standalone(String url, List<String> targets, RedisTlsOptions tls) {
    RedisClient client = RedisClient.create(url);
    client.setOptions(ClientOptions.builder().sslOptions(tls.sslOptions()).build());
    StatefulRedisConnection<String, String> strings = client.connect(StringCodec.UTF8);
    StatefulRedisConnection<byte[], byte[]> bytes = client.connect(ByteArrayCodec.INSTANCE);
    return new PeerCalls(
        client,
        strings,
        strings.async(),
        bytes,
        Bucket4jLettuce.casBasedBuilder(bytes).build().asAsync(),
        targets);
  }

  /** Over a cluster reached from {@code seeds} (Redis URLs), with the TLS files given. */
  static PeerCalls cluster(List<String> seeds, List<String> targets, RedisTlsOptions tls) {
    RedisClusterClient client =
        RedisClusterClient.create(seeds.stream().map(RedisURI::create).toList());
    client.setOptions(ClusterClientOptions.builder().sslOptions(tls.sslOptions()).build());
    StatefulRedisClusterConnection<String, String> strings = client.connect(StringCodec.UTF8);
    StatefulRedisClusterConnection<byte[], byte[]> bytes = client.connect(ByteArrayCodec.INSTANCE);
    return new PeerCalls(
        client,
        strings,
        strings.async(),
        bytes,
        Bucket4jLettuce.casBasedBuilder(bytes).build().asAsync(),
        targets);
  }

  /** {@code INCR} of call {@code i}'s target's counter. */
  CompletableFuture<?> incr(int i) {
    return commands.incr(counters[i % counters.length]).toCompletableFuture();
  }

  /** bucket4j's {@code tryConsume(1)} on call {@code i}'s target's bucket. */
  CompletableFuture<?> bucket4j(int i) {
    return buckets[i % buckets.length].tryConsume(1);
  }

  /** Clears the server's command statistics (a single server: the one the commands go to). */
  void resetServerStats() {
    join(commands.configResetstat());
  }

  /**
   * The server time (µs) spent on the calls since {@link #resetServerStats()}, from INFO
   * commandstats: the scripts' and functions' time when scripts ran (it includes the commands they
   * called, which the statistics list again on their own lines), else every command's.
   */
  double serverMicros() {
    double all = 0;
    double scripts = 0;
    for (String line : join(commands.info("commandstats")).split("\r?\n")) {
      int at = line.indexOf("usec=");
      if (line.startsWith("cmdstat_")
          && !line.startsWith("cmdstat_info")
          && !line.startsWith("cmdstat_config")
          && at >= 0) {
        int end = line.indexOf(',', at);
        double usec = Double.parseDouble(line.substring(at + 5, end < 0 ? line.length() : end));
        all += usec;
        if (line.startsWith("cmdstat_eval") || line.startsWith("cmdstat_fcall")) {
          scripts += usec;
        }
      }
    }
    return scripts > 0 ? scripts : all;
  }

  /**
   * The CPU time (µs) the server's main thread has used so far, user and system, from INFO cpu
   * (Redis 6.2 and later; NaN before).
   */
  double serverCpuMicros() {
    double seconds = Double.NaN;
    for (String line : join(commands.info("cpu")).split("\\r?\\n")) {
      if (line.startsWith("used_cpu_sys_main_thread:")
          || line.startsWith("used_cpu_user_main_thread:")) {
        double value = Double.parseDouble(line.substring(line.indexOf(':') + 1).trim());
        seconds = Double.isNaN(seconds) ? value : seconds + value;
      }
    }
    return seconds * 1e6;
  }

  private static <T> T join(java.util.concurrent.CompletionStage<T> stage) {
    return stage.toCompletableFuture().join();
  }

  @Override
  public void close() {
    strings.close();
    bytes.close();
    client.shutdown();
  }
}
