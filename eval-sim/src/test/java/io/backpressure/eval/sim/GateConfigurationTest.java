package io.backpressure.eval.sim;

import static org.assertj.core.api.Assertions.assertThat;

import io.backpressure.eval.workload.Workload;
import io.backpressure.eval.workload.WorkloadReader;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class GateConfigurationTest {

  private static final Workload DEADLINES =
      WorkloadReader.parse(
          """
      name: margin
      duration_s: 10
      upstream: {window: fixed, period_s: 1, requests_per_s: 10, latency_ms: [100, 300]}
      priorities: {P1: {weight: 1, max_wait_s: 7}, P2: 1}
      worker: {slots: 2}
      tenants:
        - {name: d, priority: P1, open_loop_rps: 1, deadline_s: 2}
        - {name: c, priority: P1, open_loop_rps: 1}
        - {name: n, priority: P2, open_loop_rps: 1}
      """);

  private static SimCall call(int queue, long submittedNanos) {
    Workload.Tenant t = DEADLINES.tenants().get(queue);
    return new SimCall(
        queue, t, DEADLINES.classIndex(t.priority()), 0, submittedNanos, 10, 10, null);
  }

  @Test
  void aCallWithADeadlineKeepsTheProvidersP95LatencyBackForItsAnswer() {
    // p95 of U(100 ms, 300 ms) is 290 ms: the turn must come by deadline − 290 ms.
    assertThat(DEADLINES.upstream().p95LatencyMs()).isEqualTo(290.0);
    SimCall call = call(0, 1_000_000_000L);
    assertThat(GateConfiguration.maxWait(DEADLINES, call, 1_000_000_000L))
        .isEqualTo(Duration.ofMillis(1710));
    assertThat(GateConfiguration.maxWait(DEADLINES, call, 2_500_000_000L))
        .isEqualTo(Duration.ofMillis(210));
    // Less left than the answer takes: no wait at all (never negative).
    assertThat(GateConfiguration.maxWait(DEADLINES, call, 2_800_000_000L)).isEqualTo(Duration.ZERO);
  }

  @Test
  void aCallWithoutADeadlineWaitsItsClasssLimitInFullOrWithoutLimit() {
    assertThat(GateConfiguration.maxWait(DEADLINES, call(1, 0), 5_000_000_000L))
        .isEqualTo(Duration.ofSeconds(7));
    assertThat(GateConfiguration.maxWait(DEADLINES, call(2, 0), 5_000_000_000L)).isNull();
  }
}
