package io.backpressure.eval.real;

import io.backpressure.core.FailOpenGate;
import io.backpressure.eval.report.Format;
import io.backpressure.eval.workload.Fault;
import io.backpressure.eval.workload.Workload;
import io.backpressure.metrics.PrometheusEndpoint;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;

/**
 * The real-mode options of {@code eval} and {@code demo}, checked, and the runner they describe.
 *
 * @param temporal an external Temporal {@code HOST:PORT}, or null for the in-process test server
 * @param namespace the namespace on an external Temporal
 * @param redis the gate's shared state, or null for memory
 * @param workers worker processes (above 1: the test server is bound to a loopback port)
 * @param metricsPort the Prometheus port, or null for none
 * @param temporalTls connect to the external Temporal over TLS (the JVM's trusted certificates)
 * @param faults the faults injected into every run ({@code --fault}), possibly none
 * @param whenUnavailable what the Redis gate does while Redis does not answer
 * @param sendMarginMillis {@code --send-margin-ms}: the gate-side margin for send-delay variation
 *     (the core's {@code Policy.withSendMargin}), 0 for none
 */
public record RealOptions(
    String temporal,
    String namespace,
    String redis,
    int workers,
    Integer metricsPort,
    boolean temporalTls,
    List<Fault> faults,
    FailOpenGate.Mode whenUnavailable,
    long sendMarginMillis) {
  /**
   * {@code --redis auto}: the harness starts and owns a redis-server (from PATH) on a free loopback
   * port.
   */
  static final String AUTO = "auto";

  /**
   * The default real-mode scale brings the request cap down to at most this many requests per
   * second: the in-process test server shares two cores with the workers, the mock provider and the
   * gate, and a deferral costs an activity task, a timer and two workflow tasks.
   */
  public static final double AUTO_SCALE_RPS = 15;

  /**
   * The largest {@code --send-margin-ms} accepted: the workloads' provider periods are a second or
   * longer, and a margin may be at most the safe window it widens.
   */
  static final long MAX_SEND_MARGIN_MILLIS = 1_000;

  /** Options without TLS to Temporal and without faults. */
  public RealOptions(
      String temporal, String namespace, String redis, int workers, Integer metricsPort) {
    this(temporal, namespace, redis, workers, metricsPort, false, List.of());
  }

  /** Options without a send margin. */
  public RealOptions(
      String temporal,
      String namespace,
      String redis,
      int workers,
      Integer metricsPort,
      boolean temporalTls,
      List<Fault> faults,
      FailOpenGate.Mode whenUnavailable) {
    this(temporal, namespace, redis, workers, metricsPort, temporalTls, faults, whenUnavailable, 0);
  }

  /** Options whose Redis gates fail open (the default mode). */
  public RealOptions(
      String temporal,
      String namespace,
      String redis,
      int workers,
      Integer metricsPort,
      boolean temporalTls,
      List<Fault> faults) {
    this(
        temporal,
        namespace,
        redis,
        workers,
        metricsPort,
        temporalTls,
        faults,
        FailOpenGate.Mode.OPEN);
  }

  public RealOptions {
    faults = List.copyOf(faults);
    if (sendMarginMillis < 0 || sendMarginMillis > MAX_SEND_MARGIN_MILLIS) {
      throw new IllegalArgumentException(
          "--send-margin-ms must be in [0, "
              + MAX_SEND_MARGIN_MILLIS
              + "], got "
              + sendMarginMillis);
    }
    FaultInjector.check(faults, AUTO.equals(redis), workers);
    if (whenUnavailable != FailOpenGate.Mode.OPEN && redis == null) {
      throw new IllegalArgumentException(
          "--when-unavailable needs --redis or --redis-cluster (it says what the Redis"
              + " gate does while Redis does not answer)");
    }
    if (temporalTls && temporal == null) {
      throw new IllegalArgumentException("--temporal-tls needs --temporal HOST:PORT");
    }
    if (workers < 1 || workers > 16) {
      throw new IllegalArgumentException("--workers must be in [1, 16], got " + workers);
    }
    if (workers > 1 && redis == null) {
      throw new IllegalArgumentException(
          "--workers "
              + workers
              + " needs --redis URL: worker processes share the"
              + " gate's state through Redis (the in-memory gate lives in one process)");
    }
    if (metricsPort != null && (metricsPort < 0 || metricsPort > 65535)) {
      throw new IllegalArgumentException(
          "--metrics-port must be in [0, 65535], got " + metricsPort);
    }
    if (temporal != null && !temporal.matches("[A-Za-z0-9.\\-\\[\\]:]+:[0-9]{1,5}")) {
      throw new IllegalArgumentException("--temporal must be HOST:PORT, got '" + temporal + "'");
    }
    if (namespace == null || namespace.isBlank()) {
      throw new IllegalArgumentException("--namespace must not be blank");
    }
  }

  /**
   * Fails when {@code faults} faults are given in sim mode: every fault acts on the real stack (a
   * process, a server, the provider's switches), which the simulator does not run.
   */
  public static void refuseFaultsInSim(int faults) {
    if (faults > 0) {
      throw new IllegalArgumentException(
          "--fault needs --mode real: every fault ("
              + String.join(", ", Fault.KINDS)
              + ") acts on the real stack, which the simulator does not run");
    }
  }

  /** Fails when a real-mode-only option is set in sim mode. */
  public void requireSimDefaults() {
    refuseFaultsInSim(faults.size());
    if (temporal != null
        || redis != null
        || workers != 1
        || metricsPort != null
        || temporalTls
        || !faults.isEmpty()
        || sendMarginMillis != 0) {
      throw new IllegalArgumentException(
          "--temporal, --temporal-tls, --redis, --workers, --metrics-port, --fault and"
              + " --send-margin-ms need --mode real");
    }
  }

  /** The runner these options describe, worker processes' output on the terminal. */
  public RealRunner runner() {
    return runner(null);
  }

  /**
   * The runner these options describe; the Temporal service opens on its first run.
   *
   * @param workersLog where worker processes' output goes, or null for the terminal
   */
  public RealRunner runner(Path workersLog) {
    PrometheusMeterRegistry registry =
        metricsPort == null ? null : new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    PrometheusEndpoint endpoint;
    try {
      endpoint =
          registry == null ? null : PrometheusEndpoint.start(registry, "127.0.0.1", metricsPort);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot serve metrics on port " + metricsPort, e);
    }
    OwnedRedis owned =
        AUTO.equals(redis)
            ? OwnedRedis.start(workersLog == null ? null : workersLog.resolveSibling("redis.log"))
            : null;
    return new RealRunner(
        any ->
            temporal != null
                ? TemporalStack.external(temporal, namespace, temporalTls)
                : workers > 1 ? TemporalStack.portBound() : TemporalStack.inProcess(),
        redis == null
            ? null
            : RedisLocation.withMode(owned != null ? owned.url() : redis, whenUnavailable),
        workers,
        registry,
        endpoint,
        workersLog,
        owned,
        faults,
        Duration.ofMillis(sendMarginMillis));
  }

  /**
   * The default real-mode divisor of {@code workload}: request cap at most {@link #AUTO_SCALE_RPS}.
   */
  public static double autoScale(Workload workload) {
    Double rps = workload.upstream().requestsPerS();
    return rps == null || rps <= AUTO_SCALE_RPS ? 1 : Math.ceil(rps / AUTO_SCALE_RPS);
  }

  /** One line telling what a real run of {@code workload} will do. */
  public static String plan(Workload workload, int runs) {
    int workflows = workload.tenants().stream().mapToInt(Workload.Tenant::workflows).sum();
    Workload.Upstream up = workload.upstream();
    return String.format(
        Locale.ROOT,
        "real mode: %s scaled by 1/%s (request cap %s/s%s, provider period %s s, %d slots, %d"
            + " closed-loop workflows); %d runs of %.0f s, about %.0f s",
        workload.name(),
        Format.number(workload.scale()),
        up.requestsPerS() == null ? "none" : Format.number(up.requestsPerS()),
        up.tokensPerS() == null ? "" : ", token cap " + Format.number(up.tokensPerS()) + "/s",
        Format.number(up.periodS()),
        workload.slots(),
        workflows,
        runs,
        workload.durationS(),
        runs * (workload.durationS() + 4));
  }
}
