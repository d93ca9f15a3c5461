package io.backpressure.bench;

import io.backpressure.core.Admission;
import io.backpressure.core.AdmissionRequest;
import io.backpressure.core.Cost;
import io.backpressure.core.Gate;
import io.backpressure.core.InMemoryGate;
import io.backpressure.core.Policy;
import io.backpressure.metrics.MeteredGate;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.infra.Blackhole;

/**
 * What {@link MeteredGate} adds to one admission and its release: the in-memory gate bare, and
 * wrapped with meters in a Prometheus or a simple registry (with and without the tenant tag). The
 * caps are high, so every call is admitted and released, which records the most meters: the
 * admission counter, latency timer and admitted cost, then the release counter and reconciled,
 * refunded or overrun cost per dimension.
 *
 * <p>Build with {@code mvn -q -pl benchmarks -am install -DskipTests}, then run:
 *
 * <pre>{@code
 * cd benchmarks && java -cp "$(mvn -q dependency:build-classpath -Dmdep.outputFile=/dev/stdout):target/classes" \
 *     org.openjdk.jmh.Main MeteredGateBenchmark -f 2 -wi 3 -w 1s -i 5 -r 1s -prof gc
 * }</pre>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class MeteredGateBenchmark {

  @Param({"none", "prometheus", "prometheus-tenant", "simple"})
  String meters;

  Gate gate;
  AdmissionRequest[] requests;
  Cost actual;

  @Setup
  public void setUp() {
    Policy policy =
        Policy.builder("bench/model")
            .dimension("requests", 1e9, 1e9)
            .dimension("tokens", 1e12, 1e12)
            .priority("P1", 0.5)
            .priority("P2", 0.3)
            .priority("P3", 0.2)
            .build();
    InMemoryGate inner = InMemoryGate.create(policy);
    gate =
        switch (meters) {
          case "none" -> inner;
          case "prometheus" ->
              MeteredGate.builder(inner, new PrometheusMeterRegistry(PrometheusConfig.DEFAULT))
                  .build();
          case "prometheus-tenant" ->
              MeteredGate.builder(inner, new PrometheusMeterRegistry(PrometheusConfig.DEFAULT))
                  .tenantTag(true)
                  .build();
          case "simple" -> MeteredGate.builder(inner, new SimpleMeterRegistry()).build();
          default -> throw new IllegalArgumentException("meters: " + meters);
        };
    String[] classes = {"P1", "P2", "P3"};
    requests = new AdmissionRequest[30];
    for (int t = 0; t < requests.length; t++) {
      requests[t] =
          AdmissionRequest.of("tenant-" + t, classes[t % 3], Cost.requests(1).tokens(100 + 10 * t));
    }
    actual = Cost.requests(1).tokens(250);
  }

  /** Per-thread position in the request list. */
  @State(Scope.Thread)
  public static class Cursor {
    int next;
  }

  /** One admission and the release of its grant with a different true cost. */
  @Benchmark
  public void admitAndRelease(Cursor cursor, Blackhole sink) {
    int t = cursor.next;
    cursor.next = t + 1 == requests.length ? 0 : t + 1;
    Admission answer = gate.admit(requests[t]);
    if (answer instanceof Admission.Admitted a) {
      sink.consume(gate.release(a.grant(), actual));
    }
    sink.consume(answer);
  }
}
