package io.backpressure.bench.redis;

import io.backpressure.core.AdmissionRequest;
import io.backpressure.core.Cost;
import io.backpressure.core.Policy;
import io.backpressure.redis.RedisGate;
import io.backpressure.redis.RedisGateConfig;
import io.backpressure.redis.TlsFiles;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.SslOptions;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntFunction;
import org.HdrHistogram.Histogram;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Load generator for the Redis backend: admission latency and throughput against a plain {@code
 * INCR} round trip through the same client (Lettuce), in the same run, at several numbers of
 * active tenants.
 *
 * <p>For each tenant count: a fresh target whose caps never bind (the full decision runs, every
 * call is admitted), one admission per tenant to make every queue active, a warm-up, then (1)
 * sequential round trips, {@code INCR} and admission interleaved, timed into HdrHistograms, and
 * (2) {@code --in-flight} calls kept outstanding with the async API, counted per second.
 *
 * <pre>{@code
 * java -cp benchmarks/target/benchmarks.jar:... io.backpressure.bench.redis.RedisAdmissionLoad \
 *     --url redis://127.0.0.1:6379 --tenants 10,10000 --seconds 10 --in-flight 32
 * }</pre>
 */
@Command(name = "redis", mixinStandardHelpOptions = true,
    description = "Admission latency and throughput on Redis, against a plain INCR round trip.")
public final class RedisAdmissionLoad implements Callable<Integer> {

  @Option(names = "--url", required = true, description = "Redis URL, e.g. redis://127.0.0.1:6379")
  String url;

  @Option(names = "--tenants", split = ",", defaultValue = "10,10000", description = "Active tenant counts")
  int[] tenants;

  @Option(names = "--seconds", defaultValue = "10", description = "Seconds per measurement")
  double seconds;

  @Option(names = "--in-flight", defaultValue = "32", description = "Outstanding calls in the throughput run")
  int inFlight;

  @Option(names = "--redis-ca", paramLabel = "FILE", description = "PEM CA file to trust for a rediss:// URL")
  Path caFile;

  @Option(names = "--redis-cert", paramLabel = "FILE", description = "PEM client certificate (with --redis-key)")
  Path certFile;

  @Option(names = "--redis-key", paramLabel = "FILE", description = "PEM (PKCS#8) key of --redis-cert")
  Path keyFile;

  public RedisAdmissionLoad() {}

  public static void main(String[] args) {
    System.exit(new CommandLine(new RedisAdmissionLoad()).execute(args));
  }

  @Override
  public Integer call() throws Exception {
    TlsFiles tls = caFile == null && certFile == null ? null : new TlsFiles(caFile, certFile, keyFile);
    RedisClient client = RedisClient.create(url);
    if (tls != null) {
      SslOptions.Builder ssl = SslOptions.builder().jdkSslProvider();
      if (caFile != null) {
        ssl.trustManager(caFile.toFile());
      }
      if (certFile != null) {
        ssl.keyManager(certFile.toFile(), keyFile.toFile(), null);
      }
      client.setOptions(ClientOptions.builder().sslOptions(ssl.build()).build());
    }
    try (StatefulRedisConnection<String, String> plain = client.connect()) {
      RedisAsyncCommands<String, String> incr = plain.async();
      System.out.printf("%-8s | %-26s | %-26s | %-6s | %-12s | %-12s | %-6s%n", "tenants",
          "INCR p50/p95/p99 (µs)", "admit p50/p95/p99 (µs)", "p50 ×", "INCR ops/s", "admit ops/s", "share");
      for (int n : tenants) {
        String target = "bench/" + n + "-" + System.nanoTime();
        Policy policy = Policy.builder(target)
            .requestsPerSecond(1e9).tokensPerSecond(1e12)
            .priority("P1", 0.5).priority("P2", 0.3).priority("P3", 0.2)
            .idleTtl(Duration.ofMinutes(10)).grantTtl(Duration.ofMinutes(1))
            .build();
        RedisGateConfig config = RedisGateConfig.builder(url).policy(policy)
            .commandTimeout(Duration.ofSeconds(5)).tls(tls).build();
        try (RedisGate gate = RedisGate.connect(config)) {
          IntFunction<AdmissionRequest> request = i -> AdmissionRequest.of(
              "tenant-" + (i % n), "P" + (1 + i % 3), Cost.of(1, 100 + i % 400));
          populate(gate, n, request);
          String counter = "bench:{" + target + "}:incr";
          sequential(gate, incr, counter, request, 2);
          Histogram[] latency = sequential(gate, incr, counter, request, seconds);
          double incrRate = throughput(i -> incr.incr(counter).toCompletableFuture(), seconds);
          double admitRate = throughput(i -> gate.admitAsync(request.apply(i)), seconds);
          System.out.printf("%-8d | %-26s | %-26s | %-6.2f | %-12.0f | %-12.0f | %5.0f %%%n", n,
              percentiles(latency[0]), percentiles(latency[1]),
              (double) latency[1].getValueAtPercentile(50) / latency[0].getValueAtPercentile(50),
              incrRate, admitRate, 100 * admitRate / incrRate);
        }
      }
    } finally {
      client.shutdown();
    }
    return 0;
  }

  /** One admission per tenant, many in flight, so that every queue is active. */
  private void populate(RedisGate gate, int n, IntFunction<AdmissionRequest> request) throws InterruptedException {
    Semaphore slots = new Semaphore(inFlight);
    for (int i = 0; i < n; i++) {
      slots.acquire();
      gate.admitAsync(request.apply(i)).whenComplete((a, e) -> slots.release());
    }
    slots.acquire(inFlight);
  }

  /** Interleaved sequential round trips: [0] INCR, [1] admission; values in µs. */
  private static Histogram[] sequential(RedisGate gate, RedisAsyncCommands<String, String> incr, String counter,
      IntFunction<AdmissionRequest> request, double seconds) throws Exception {
    Histogram plain = new Histogram(TimeUnit.SECONDS.toMicros(10), 3);
    Histogram admit = new Histogram(TimeUnit.SECONDS.toMicros(10), 3);
    long until = System.nanoTime() + (long) (seconds * 1e9);
    for (int i = 0; System.nanoTime() < until; i++) {
      long t0 = System.nanoTime();
      incr.incr(counter).get();
      long t1 = System.nanoTime();
      gate.admit(request.apply(i));
      long t2 = System.nanoTime();
      plain.recordValue(Math.max(1, (t1 - t0) / 1_000));
      admit.recordValue(Math.max(1, (t2 - t1) / 1_000));
    }
    return new Histogram[] {plain, admit};
  }

  /** Completions per second with {@code inFlight} calls outstanding. */
  private double throughput(IntFunction<CompletableFuture<?>> call, double seconds) throws InterruptedException {
    Semaphore slots = new Semaphore(inFlight);
    AtomicLong done = new AtomicLong();
    long start = System.nanoTime();
    long until = start + (long) (seconds * 1e9);
    for (int i = 0; System.nanoTime() < until; i++) {
      slots.acquire();
      call.apply(i).whenComplete((r, e) -> {
        done.incrementAndGet();
        slots.release();
      });
    }
    slots.acquire(inFlight);
    return done.get() / ((System.nanoTime() - start) / 1e9);
  }

  private static String percentiles(Histogram h) {
    return h.getValueAtPercentile(50) + " / " + h.getValueAtPercentile(95) + " / " + h.getValueAtPercentile(99);
  }
}
