package io.backpressure.eval;

import static org.assertj.core.api.Assertions.assertThat;

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

  private static SimCall call(int classIndex, long sequence) {
    return new SimCall(0, MetricsTest.TINY.tenants().get(0), classIndex, sequence, 0, 1, 1, null);
  }
}
