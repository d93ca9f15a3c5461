package io.backpressure.bench.redis;

import io.backpressure.admin.RedisTlsOptions;
import io.backpressure.bench.redis.Measurement.Call;
import io.backpressure.bench.redis.Measurement.Rate;
import io.backpressure.core.AdmissionRequest;
import io.backpressure.core.Cost;
import io.backpressure.core.FailOpenGate;
import io.backpressure.core.Policy;
import io.backpressure.core.spi.Redaction;
import io.backpressure.redis.RedisGate;
import io.backpressure.redis.RedisGateConfig;
import io.backpressure.redis.RedisGates;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.function.IntFunction;
import org.HdrHistogram.Histogram;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * Load generator for the Redis backend: the admission beside a plain {@code INCR} and bucket4j's
 * Lettuce backend (one bandwidth), through Lettuce, in the same run, on one server or a cluster,
 * for one or many targets and several numbers of active tenants.
 *
 * <p>For each tenant count: {@code --targets} fresh targets in one {@link RedisGates} (one
 * connection) whose caps never bind (the full decision runs, every call is admitted); call {@code
 * i} goes to target {@code i mod targets}, tenant {@code (i / targets) mod tenants}, and the peers
 * use a counter and a bucket of the same target (same hash tag, same node). One admission per
 * tenant and target makes every queue active; after a warm-up, (1) sequential round trips, the
 * three calls interleaved, are timed into HdrHistograms, and (2) each call kind in turn is kept
 * {@code --in-flight} deep with the async API and counted. On a single server the server's own time
 * per call is read from {@code INFO commandstats} (the phase's scripts and functions, which include
 * the commands they call, or all its commands when it ran none, divided by the calls completed; see
 * {@link PeerCalls#serverMicros()}), and the CPU time of the server's main thread per call from
 * {@code INFO cpu}, which counts command parsing and replies too and, unlike the statistics'
 * wall-clock time, not the time the server waits for a core on a loaded machine.
 *
 * <pre>{@code
 * ./backpressure bench redis --url redis://127.0.0.1:6379 --tenants 10,10000 --seconds 10 --in-flight 32
 * ./backpressure bench redis --redis-cluster 127.0.0.1:7000,127.0.0.1:7001 --targets 12 --tenants 10
 * ./backpressure bench redis --url redis://127.0.0.1:6379 --tenants 10,10000 --profile 20000
 * }</pre>
 */
@Command(
    name = "redis",
    mixinStandardHelpOptions = true,
    description =
        "Admission latency and throughput on Redis, beside INCR and bucket4j's Lettuce backend.")
public final class RedisAdmissionLoad implements Callable<Integer> {

  @Option(
      names = "--url",
      description = "Redis URL, e.g. redis://127.0.0.1:6379 (or give --redis-cluster)")
  String url;

  @Option(
      names = "--redis-cluster",
      paramLabel = "HOST:PORT",
      split = ",",
      description = "Redis Cluster seed nodes instead of --url")
  List<String> clusterSeeds;

  @Option(
      names = "--tenants",
      split = ",",
      defaultValue = "10,10000",
      description = "Active tenant counts")
  int[] tenants;

  @Option(
      names = "--targets",
      defaultValue = "1",
      description = "Targets, all over one connection (1 to 10000)")
  int targets;

  @Option(names = "--seconds", defaultValue = "10", description = "Seconds per measurement")
  double seconds;

  @Option(
      names = "--in-flight",
      defaultValue = "32",
      description = "Outstanding calls in the throughput run")
  int inFlight;

  @Option(
      names = "--rule",
      defaultValue = "nested-buckets",
      description =
          "The admission rule the script runs: nested-buckets or fair-queuing (the rebuilt rule,"
              + " RedisGateConfig.Builder.fairQueuing)")
  String rule;

  @Mixin RedisTlsOptions tls = new RedisTlsOptions();

  @Option(
      names = "--profile",
      paramLabel = "REPS",
      defaultValue = "0",
      description =
          "Instead of the load: the admission script's server time by phase, each phase repeated REPS times "
              + "in one call (--url only; see ScriptProfile)")
  int profile;

  public RedisAdmissionLoad() {}

  public static void main(String[] args) {
    System.exit(new CommandLine(new RedisAdmissionLoad()).execute(args));
  }

  @Override
  public Integer call() throws Exception {
    String problem = problem();
    if (problem != null) {
      System.err.println("bench redis: " + problem);
      return 2;
    }
    boolean cluster = clusterSeeds != null;
    RedisGateConfig.Builder options;
    List<String> seedUrls;
    try {
      options =
          (cluster ? RedisGateConfig.builder().cluster(clusterSeeds) : RedisGateConfig.builder(url))
              .commandTimeout(Duration.ofSeconds(5))
              // Measures the strict gates: no LOCAL heartbeat adding commands to the load.
              .whenUnavailable(FailOpenGate.Mode.OPEN)
              .fairQueuing(rule.equals("fair-queuing"))
              .tls(tls.files());
      seedUrls = options.target("bench").build().clusterSeeds();
    } catch (IllegalArgumentException e) {
      System.err.println(
          "bench redis: "
              + (cluster ? "--redis-cluster: " : "--url: ")
              + Redaction.scrub(e.getMessage(), url));
      return 2;
    }
    System.out.printf(
        "%s, rule %s, %d target%s over one connection, %d in flight, %.0f s per measurement%n",
        cluster
            ? "Redis Cluster from " + String.join(",", clusterSeeds)
            : "Redis at " + Redaction.url(url),
        rule,
        targets,
        targets == 1 ? "" : "s",
        inFlight,
        seconds);
    try (RedisGates gates = RedisGates.connect(options)) {
      for (int n : tenants) {
        List<String> names = new ArrayList<>();
        RedisGate[] gate = new RedisGate[targets];
        for (int t = 0; t < targets; t++) {
          names.add("bench/" + n + "-" + System.nanoTime() + "-" + t);
          gates.gate(policy(names.get(t)));
          gate[t] = gates.strict(names.get(t));
        }
        if (profile > 0) {
          populate(
              new Call(
                  "admit",
                  i ->
                      gate[i % targets].admitAsync(
                          AdmissionRequest.of(
                              "tenant-" + (i / targets) % n,
                              "P" + (1 + i % 3),
                              Cost.requests(1).tokens(100 + i % 400)))),
              n * targets);
          ScriptProfile.run(url, tls, gate[0], n, profile);
          continue;
        }
        try (PeerCalls peers =
            cluster
                ? PeerCalls.cluster(seedUrls, names, tls)
                : PeerCalls.standalone(url, names, tls)) {
          run(n, gate, peers, cluster);
        }
      }
    }
    return 0;
  }

  private String problem() {
    if (tls.problem() != null) {
      return tls.problem().message();
    }
    if ((url == null) == (clusterSeeds == null)) {
      return "give either --url or --redis-cluster";
    }
    if (!rule.equals("nested-buckets") && !rule.equals("fair-queuing")) {
      return "--rule must be nested-buckets or fair-queuing, got " + rule;
    }
    if (profile > 0 && !rule.equals("nested-buckets")) {
      return "--profile times the nested-buckets script's phases; give it without --rule";
    }
    if (targets < 1 || targets > 10_000) {
      return "--targets must be in [1, 10000], got " + targets;
    }
    for (int n : tenants) {
      if (n < 1 || n > 1_000_000) {
        return "--tenants must each be in [1, 1000000], got " + n;
      }
    }
    if (!(seconds > 0 && seconds <= 3_600)) {
      return "--seconds must be in (0, 3600], got " + seconds;
    }
    if (profile < 0 || profile > 1_000_000 || (profile > 0 && clusterSeeds != null)) {
      return "--profile must be in [0, 1000000], with --url, got " + profile;
    }
    if (inFlight < 1 || inFlight > 10_000) {
      return "--in-flight must be in [1, 10000], got " + inFlight;
    }
    return null;
  }

  private static Policy policy(String target) {
    return Policy.builder(target)
        .requestsPerSecond(1e9)
        .tokensPerSecond(1e12)
        .priority("P1", 0.5)
        .priority("P2", 0.3)
        .priority("P3", 0.2)
        .idleTtl(Duration.ofMinutes(10))
        .grantTtl(Duration.ofMinutes(1))
        .build();
  }

  private void run(int n, RedisGate[] gate, PeerCalls peers, boolean cluster) throws Exception {
    int t = gate.length;
    IntFunction<AdmissionRequest> request =
        i ->
            AdmissionRequest.of(
                "tenant-" + (i / t) % n, "P" + (1 + i % 3), Cost.requests(1).tokens(100 + i % 400));
    List<Call> calls =
        List.of(
            new Call("INCR", peers::incr),
            new Call("bucket4j", peers::bucket4j),
            new Call("admit", i -> gate[i % t].admitAsync(request.apply(i))));
    populate(calls.get(2), n * t);
    Measurement.sequential(calls, Math.min(2, seconds));
    Histogram[] latency = Measurement.sequential(calls, seconds);
    Rate[] rates = new Rate[calls.size()];
    double[] serverMicros = new double[calls.size()];
    double[] serverCpu = new double[calls.size()];
    for (int c = 0; c < calls.size(); c++) {
      double cpu = Double.NaN;
      if (!cluster) {
        peers.resetServerStats();
        cpu = peers.serverCpuMicros();
      }
      rates[c] = Measurement.throughput(calls.get(c), inFlight, seconds);
      serverMicros[c] = cluster ? Double.NaN : peers.serverMicros() / rates[c].calls();
      serverCpu[c] = cluster ? Double.NaN : (peers.serverCpuMicros() - cpu) / rates[c].calls();
    }
    System.out.printf("%n%d tenant%s per target%n", n, n == 1 ? "" : "s");
    System.out.printf(
        "%-9s | %-24s | %-12s | %-14s | %-14s | %-10s | %-10s%n",
        "call",
        "p50 / p95 / p99 (µs)",
        "ops/s",
        "server µs/call",
        "server CPU µs",
        "p50 ×INCR",
        "ops ÷INCR");
    for (int c = 0; c < calls.size(); c++) {
      System.out.printf(
          "%-9s | %-24s | %-12.0f | %-14s | %-14s | %-10.2f | %8.0f %%%n",
          calls.get(c).name(),
          Measurement.percentiles(latency[c]),
          rates[c].perSecond(),
          Double.isNaN(serverMicros[c]) ? "-" : String.format("%.1f", serverMicros[c]),
          Double.isNaN(serverCpu[c]) ? "-" : String.format("%.1f", serverCpu[c]),
          (double) latency[c].getValueAtPercentile(50) / latency[0].getValueAtPercentile(50),
          100 * rates[c].perSecond() / rates[0].perSecond());
    }
    System.out.printf(
        "admit ÷ bucket4j: p50 latency %.2f ×, ops/s %.2f ×%n",
        (double) latency[2].getValueAtPercentile(50) / latency[1].getValueAtPercentile(50),
        rates[2].perSecond() / rates[1].perSecond());
  }

  /** {@code count} admissions, many in flight, so that every tenant's queue is active. */
  private void populate(Call admit, int count) throws InterruptedException {
    Measurement.InFlight outstanding = new Measurement.InFlight(inFlight);
    for (int i = 0; i < count; i++) {
      outstanding.start(admit, i);
    }
    outstanding.drain();
  }
}
