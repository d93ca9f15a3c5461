package io.backpressure.bench;

import io.backpressure.core.Admission;
import io.backpressure.core.AdmissionRequest;
import io.backpressure.core.Cost;
import io.backpressure.core.InMemoryGate;
import io.backpressure.core.InMemoryGates;
import io.backpressure.core.Policy;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.infra.Blackhole;

/**
 * Targets that do not contend: each benchmark thread admits and releases on a target of its own,
 * all from one {@link InMemoryGates} registry (one lock per target). Run with one thread and with
 * two: on two free cores, two threads on two targets should come close to twice one thread, where
 * two threads on one target ({@link InMemoryAdmissionBenchmark} with two threads) share one lock.
 * Ten tenants in three classes per target, caps that never bind.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class TargetsBenchmark {
  InMemoryGates gates;
  final AtomicInteger nextTarget = new AtomicInteger();

  @Setup
  public void setUp() {
    gates = InMemoryGates.create();
  }

  /** One thread's own target, its requests and its position in them. */
  @State(Scope.Thread)
  public static class OwnTarget {
    InMemoryGate gate;
    AdmissionRequest[] requests;
    int next;
    final Cost actual = Cost.requests(1).tokens(250);

    @Setup
    public void setUp(TargetsBenchmark shared) {
      String target = "bench/target-" + shared.nextTarget.getAndIncrement();
      gate =
          shared.gates.gate(
              Policy.builder(target)
                  .dimension("requests", 1e9, 1e9)
                  .dimension("tokens", 1e12, 1e12)
                  .priority("P1", 0.5)
                  .priority("P2", 0.3)
                  .priority("P3", 0.2)
                  .grantTtl(Duration.ofMinutes(15))
                  .build());
      String[] classes = {"P1", "P2", "P3"};
      requests = new AdmissionRequest[10];
      for (int t = 0; t < requests.length; t++) {
        requests[t] =
            AdmissionRequest.of(
                "tenant-" + t, classes[t % 3], Cost.requests(1).tokens(100 + t * 37));
      }
    }
  }

  /** One admission on this thread's target and the release of its grant with the true cost. */
  @Benchmark
  public void admitAndReleaseOwnTarget(OwnTarget own, Blackhole sink) {
    int t = own.next;
    own.next = t + 1 == own.requests.length ? 0 : t + 1;
    Admission answer = own.gate.admit(own.requests[t]);
    if (answer instanceof Admission.Admitted a) {
      sink.consume(own.gate.release(a.grant(), own.actual));
    }
    sink.consume(answer);
  }
}
