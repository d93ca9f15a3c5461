package io.backpressure.bench;

import io.backpressure.core.Admission;
import io.backpressure.core.AdmissionRequest;
import io.backpressure.core.Cost;
import io.backpressure.core.InMemoryGate;
import io.backpressure.core.Policy;
import java.time.Duration;
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
 * Admissions per second of the in-memory gate on the system clock, with 10 or 10 000 active tenants
 * spread over three classes, deciding with the nested-buckets rule or the fair-queuing rule ({@code
 * rule}). Each operation is one admission plus, when admitted, its release with a different true
 * cost, as a worker would do; a deferral is retried with its booking by the next operation of the
 * same tenant. The caps are set high enough that most calls are admitted, so the grant bookkeeping
 * is exercised as well as the decision.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class InMemoryAdmissionBenchmark {

  @Param({"10", "10000"})
  int tenants;

  @Param({"nested-buckets", "fair-queuing"})
  String rule;

  InMemoryGate gate;
  InMemoryGate admitOnly;
  AdmissionRequest[] requests;
  Cost actual;

  @Setup
  public void setUp() {
    gate = gate(policy(Duration.ofMinutes(15)));
    admitOnly = gate(policy(Duration.ofSeconds(1)));
    requests = new AdmissionRequest[tenants];
    String[] classes = {"P1", "P2", "P3"};
    for (int t = 0; t < tenants; t++) {
      requests[t] =
          AdmissionRequest.of(
              "tenant-" + t, classes[t % 3], Cost.requests(1).tokens(100 + t % 400));
    }
    actual = Cost.requests(1).tokens(250);
  }

  private InMemoryGate gate(Policy policy) {
    return rule.equals("fair-queuing")
        ? InMemoryGate.createFairQueuing(policy, System::nanoTime)
        : InMemoryGate.create(policy);
  }

  private static Policy policy(Duration grantTtl) {
    return Policy.builder("bench/model")
        .dimension("requests", 1e9, 1e9)
        .dimension("tokens", 1e12, 1e12)
        .priority("P1", 0.5)
        .priority("P2", 0.3)
        .priority("P3", 0.2)
        .grantTtl(grantTtl)
        .build();
  }

  /** Per-thread position in the tenant list, and each tenant's pending booking. */
  @State(Scope.Thread)
  public static class Cursor {
    int next;
    String[] bookings;

    /** Asks {@code gate} for the next tenant's call, with its booking if it was deferred. */
    Admission admitNext(InMemoryGate gate, AdmissionRequest[] requests) {
      if (bookings == null) {
        bookings = new String[requests.length];
        next = (int) (Thread.currentThread().getId() * 7919 % requests.length);
      }
      int t = next;
      next = t + 1 == requests.length ? 0 : t + 1;
      String booking = bookings[t];
      Admission answer =
          gate.admit(booking == null ? requests[t] : requests[t].withBooking(booking));
      bookings[t] = answer instanceof Admission.Deferred d ? d.booking() : null;
      return answer;
    }
  }

  /**
   * One admission (or retry under a booking), its grant never released: the decision alone. The
   * grant TTL is the shortest a policy allows (1 s), so forgotten grants do not pile up.
   */
  @Benchmark
  public void admit(Cursor cursor, Blackhole sink) {
    sink.consume(cursor.admitNext(admitOnly, requests));
  }

  /** One admission and the release of its grant with the true cost: what a worker does per call. */
  @Benchmark
  public void admitAndRelease(Cursor cursor, Blackhole sink) {
    Admission answer = cursor.admitNext(gate, requests);
    if (answer instanceof Admission.Admitted a) {
      sink.consume(gate.release(a.grant(), actual));
    }
    sink.consume(answer);
  }
}
