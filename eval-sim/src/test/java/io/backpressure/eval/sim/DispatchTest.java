package io.backpressure.eval.sim;

import static org.assertj.core.api.Assertions.assertThat;

import io.backpressure.eval.workload.Workload;
import io.backpressure.eval.workload.WorkloadReader;
import org.junit.jupiter.api.Test;

class DispatchTest {
  private static final long MS = 1_000_000L;

  @Test
  void fifoServesInArrivalOrder() {
    Dispatch fifo = Dispatch.fifo();
    SimCall low = call(2, 0);
    SimCall high = call(0, 1);
    fifo.enqueue(low);
    fifo.enqueue(high);
    assertThat(fifo.poll(0)).isSameAs(low);
    assertThat(fifo.poll(0)).isSameAs(high);
    assertThat(fifo.poll(0)).isNull();
    assertThat(fifo.nextReadyNanos(0)).isEqualTo(Long.MAX_VALUE);
  }

  @Test
  void throttledDispatchIsPriorityOrderedAndRateLimitedWithBurstOne() {
    Dispatch tn = Dispatch.throttled(10);
    SimCall p3 = call(2, 0);
    SimCall p1 = call(0, 1);
    SimCall p1Later = call(0, 2);
    tn.enqueue(p3);
    tn.enqueue(p1);
    tn.enqueue(p1Later);
    assertThat(tn.poll(0)).isSameAs(p1);
    assertThat(tn.poll(0)).isNull();
    assertThat(tn.nextReadyNanos(0)).isEqualTo(100 * MS);
    assertThat(tn.poll(99 * MS)).isNull();
    assertThat(tn.poll(100 * MS)).isSameAs(p1Later);
    // An idle spell banks at most one dispatch.
    assertThat(tn.poll(900 * MS)).isSameAs(p3);
    tn.enqueue(call(1, 3));
    assertThat(tn.poll(900 * MS)).isNull();
  }

  private static final Workload ONE_TENANT =
      WorkloadReader.parse(
          """
      name: one-tenant
      duration_s: 10
      upstream: {requests_per_s: 10, latency_ms: [100, 100]}
      priorities: {P1: 0.6, P2: 0.4}
      worker: {slots: 2}
      tenants:
        - {name: a, priority: P1, workflows: 1}
      """);

  private static SimCall call(int classIndex, long sequence) {
    return new SimCall(0, ONE_TENANT.tenants().get(0), classIndex, sequence, 0, 1, 1, null);
  }
}
