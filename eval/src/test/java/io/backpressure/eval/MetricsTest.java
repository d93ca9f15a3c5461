package io.backpressure.eval;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class MetricsTest {
  static final Workload TINY = WorkloadReader.parse("""
      name: tiny
      duration_s: 10
      warmup_s: 1
      upstream: {requests_per_s: 10, tokens_per_s: 1000, latency_ms: [100, 100]}
      priorities: {P1: 0.6, P2: 0.4}
      worker: {slots: 2}
      tenants:
        - {name: a, priority: P1, workflows: 1, calls_per_workflow: 3, prompt_tokens: 50, completion_tokens: 50}
        - {name: b, priority: P2, workflows: 2, prompt_tokens: 50, completion_tokens: 50}
      """);

  /** Queue a finishes at 5 s, so the contention window is [1 s, 5 s]. */
  static Recording handMade() {
    List<Recording.Attempt> attempts = List.of(
        attempt(0, 0.6, false), attempt(0, 1.0, true), attempt(0, 2.9, true), attempt(0, 4.9, true),
        attempt(1, 0.8, true), attempt(1, 3.9, true), attempt(1, 4.5, false));
    List<Recording.Call> calls = List.of(
        call(0, 0.5, 1.5, Recording.Outcome.OK, 200, 1),
        call(0, 1.5, 3.0, Recording.Outcome.OK, 100, 0),
        call(0, 3.0, 5.0, Recording.Outcome.OK, 100, 0),
        call(1, 0.2, 0.9, Recording.Outcome.OK, 100, 0),
        call(1, 2.0, 4.0, Recording.Outcome.OK, 300, 2),
        new Recording.Call(1, s(4.0), -1, Recording.Outcome.UNFINISHED, 50_000_000L, 0, 1));
    return new Recording(s(10), attempts, calls, new long[] {s(5), -1});
  }

  @Test
  void everyMetricMatchesTheHandComputation() {
    Map<String, RunMetrics.Value> v = Metrics.compute(TINY, handMade()).values();
    assertThat(scalar(v, "contention_window_s")).isCloseTo(4, within(1e-12));
    assertThat(scalar(v, "http_429_share")).isCloseTo(2 / 7.0, within(1e-12));
    assertThat(scalar(v, "ok_rps_total")).isCloseTo(1.0, within(1e-12));
    assertThat(keyed(v, "ok_rps_by_priority")).containsEntry("P1", 0.75).containsEntry("P2", 0.25);
    assertThat(keyed(v, "ok_rps_by_queue")).containsEntry("a", 0.75).containsEntry("b", 0.25);
    // DRF: both queues cost (1 req, 100 tok) = 0.1 dominant share; weights 0.6/0.4; requests and tokens
    // run out together at 6 + 4 calls/s; demand caps (10 and 20 calls/s) do not bind.
    assertThat(keyed(v, "ideal_rps_by_queue").get("a")).isCloseTo(6, within(1e-9));
    assertThat(keyed(v, "ideal_rps_by_queue").get("b")).isCloseTo(4, within(1e-9));
    // Achievements 0.125 and 0.0625: Jain = 0.1875² / (2 · 0.01953125) = 0.9.
    assertThat(scalar(v, "achievement_jain")).isCloseTo(0.9, within(1e-12));
    assertThat(scalar(v, "priority_order_held")).isEqualTo(1.0);
    assertThat(keyed(v, "p95_latency_ms_by_priority")).containsEntry("P1", 2000.0).containsEntry("P2", 2000.0);
    assertThat(scalar(v, "slot_ms_per_ok")).isCloseTo(850 / 5.0, within(1e-9));
    assertThat(scalar(v, "deferrals_per_ok")).isCloseTo(3 / 5.0, within(1e-12));
    assertThat(keyed(v, "cap_utilization").get("requests")).isCloseTo(0.1, within(1e-12));
    assertThat(keyed(v, "cap_utilization").get("tokens")).isCloseTo(0.1, within(1e-12));
  }

  @Test
  void windowRunsToTheEndWhenNoQueueFinishes() {
    Recording r = handMade();
    Recording open = new Recording(r.endNanos(), r.attempts(), r.calls(), new long[] {-1, -1});
    Map<String, RunMetrics.Value> v = Metrics.compute(TINY, open).values();
    assertThat(scalar(v, "contention_window_s")).isCloseTo(9, within(1e-12));
    assertThat(scalar(v, "ok_rps_total")).isCloseTo(4 / 9.0, within(1e-12));
  }

  @Test
  void priorityOrderFailsWhenALowerClassGetsMore() {
    Recording r = handMade();
    List<Recording.Call> calls = new java.util.ArrayList<>(r.calls());
    calls.add(call(1, 2.0, 4.5, Recording.Outcome.OK, 100, 0));
    calls.add(call(1, 2.0, 4.6, Recording.Outcome.OK, 100, 0));
    Map<String, RunMetrics.Value> v = Metrics.compute(TINY,
        new Recording(r.endNanos(), r.attempts(), calls, r.queueFinishedNanos())).values();
    assertThat(keyed(v, "ok_rps_by_priority")).containsEntry("P1", 0.75).containsEntry("P2", 0.75);
    assertThat(scalar(v, "priority_order_held")).isEqualTo(0.0);
  }

  @Test
  void aQueueFinishingBeforeTheWarmUpLeavesWindowMetricsUndefined() {
    Recording r = handMade();
    Recording early = new Recording(r.endNanos(), r.attempts(), r.calls(), new long[] {s(0.5), -1});
    Map<String, RunMetrics.Value> v = Metrics.compute(TINY, early).values();
    assertThat(scalar(v, "ok_rps_total")).isNaN();
    assertThat(scalar(v, "achievement_jain")).isNaN();
    assertThat(scalar(v, "http_429_share")).isCloseTo(2 / 7.0, within(1e-12));
  }

  @Test
  void heatCountsSuccessesPerSecondBin() {
    RunMetrics m = Metrics.compute(TINY, handMade());
    assertThat(m.binSeconds()).isEqualTo(1.0);
    assertThat(m.heat()[0]).hasSize(10);
    assertThat(m.heat()[0][1]).isEqualTo(1.0);
    assertThat(m.heat()[0][3]).isEqualTo(1.0);
    assertThat(m.heat()[0][5]).isEqualTo(1.0);
    assertThat(m.heat()[1][0]).isEqualTo(1.0);
  }

  private static double scalar(Map<String, RunMetrics.Value> v, String name) {
    return ((RunMetrics.Scalar) v.get(name)).value();
  }

  private static Map<String, Double> keyed(Map<String, RunMetrics.Value> v, String name) {
    return ((RunMetrics.ByKey) v.get(name)).values();
  }

  private static Recording.Attempt attempt(int queue, double start, boolean ok) {
    long t = s(start);
    return new Recording.Attempt(queue, t, ok ? t + 100_000_000L : t, ok, ok ? null : "requests", 100, ok);
  }

  private static Recording.Call call(int queue, double submitted, double finished, Recording.Outcome outcome,
      long slotMs, int deferrals) {
    return new Recording.Call(queue, s(submitted), s(finished), outcome, slotMs * 1_000_000L, deferrals, 1);
  }

  private static long s(double seconds) {
    return Math.round(seconds * 1e9);
  }
}
