package io.backpressure.eval.workload;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.backpressure.eval.measure.Metrics;
import io.backpressure.eval.measure.RunMetrics;
import io.backpressure.eval.sim.Configuration;
import io.backpressure.eval.sim.SimRunner;
import org.junit.jupiter.api.Test;

class WorkloadStretchTest {
  private static final String LARGE_CALLS =
      """
      name: large
      duration_s: 40
      warmup_s: 2
      upstream: {period_s: 1, requests_per_s: 60, tokens_per_s: 30000, latency_ms: [200, 600]}
      priorities: {P1: 0.6, P2: 0.4}
      worker: {slots: 16}
      tenants:
        - {name: a, priority: P1, workflows: 4, prompt_tokens: {uniform: [6000, 14000]}, completion_tokens: 100, deadline_s: 20}
        - {name: b, priority: P2, workflows: 4, prompt_tokens: {uniform: [6000, 14000]}, completion_tokens: 100, start_s: 5}
      """;

  @Test
  void stretchingMultipliesTimesDividesRatesAndKeepsSizes() {
    Workload w = WorkloadReader.parse(LARGE_CALLS);
    Workload s = w.stretched(4);
    assertThat(s.durationS()).isEqualTo(160.0);
    assertThat(s.warmupS()).isEqualTo(8.0);
    assertThat(s.upstream().periodS()).isEqualTo(4.0);
    assertThat(s.upstream().tokensPerS()).isEqualTo(7500.0);
    assertThat(s.upstream().tokensPerS() * s.upstream().periodS())
        .as("one period's allowance is unchanged")
        .isEqualTo(w.upstream().tokensPerS() * w.upstream().periodS());
    assertThat(s.upstream().latencyMinMs()).isEqualTo(800.0);
    assertThat(s.upstream().latencyMaxMs()).isEqualTo(2400.0);
    assertThat(s.slots()).isEqualTo(16);
    Workload.Tenant a = s.tenants().get(0);
    assertThat(a.workflows()).isEqualTo(4);
    assertThat(a.promptTokens()).isEqualTo(new TokenCount.Uniform(6000, 14000));
    assertThat(a.deadlineS()).isEqualTo(80.0);
    assertThat(s.tenants().get(1).startS()).isEqualTo(20.0);
    assertThat(w.stretched(1)).isSameAs(w);
    assertThatThrownBy(() -> w.stretched(0.5))
        .hasMessageContaining("--time-scale must be in [1, 1000]");
  }

  @Test
  void dividingMakesLargeCallsUnservableWhereStretchingDoesNot() {
    Workload w = WorkloadReader.parse(LARGE_CALLS);
    assertThat(w.callsFitScaledBy(1)).isTrue();
    assertThat(w.callsFitScaledBy(2)).isTrue();
    assertThat(w.callsFitScaledBy(4)).as("14 100 tokens against 7 500 a period").isFalse();
    assertThat(w.stretched(4).callsFitScaledBy(1)).isTrue();
  }

  /**
   * The simulator on the stretched workload agrees with itself on the original: only its fixed
   * costs (2 ms dispatch, 5-20 ms timer lateness) do not stretch.
   */
  @Test
  void stretchingKeepsTheDimensionlessMetricsInTheSimulator() {
    Workload w = WorkloadReader.parse(LARGE_CALLS);
    for (String config : new String[] {"bp", "naive"}) {
      RunMetrics one = Metrics.compute(w, new SimRunner().run(w, Configuration.named(config), 5));
      Workload s = w.stretched(4);
      RunMetrics four = Metrics.compute(s, new SimRunner().run(s, Configuration.named(config), 5));
      for (String key : new String[] {"achievement_jain", "http_429_share", "expired_share"}) {
        assertThat(scalar(four, key))
            .as(config + " " + key)
            .isCloseTo(scalar(one, key), within(0.05));
      }
      assertThat(byKey(four, "cap_utilization", "tokens"))
          .as(config + " tokens used")
          .isCloseTo(byKey(one, "cap_utilization", "tokens"), within(0.05));
      assertThat(byKey(one, "cap_utilization", "tokens")).as(config).isGreaterThan(0.5);
    }
  }

  private static double scalar(RunMetrics m, String key) {
    return ((RunMetrics.Scalar) m.values().get(key)).value();
  }

  private static double byKey(RunMetrics m, String key, String sub) {
    return ((RunMetrics.ByKey) m.values().get(key)).values().get(sub);
  }
}
