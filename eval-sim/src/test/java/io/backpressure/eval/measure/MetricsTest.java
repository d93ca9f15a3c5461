package io.backpressure.eval.measure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.backpressure.core.RejectReason;
import io.backpressure.eval.workload.Workload;
import io.backpressure.eval.workload.WorkloadReader;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class MetricsTest {
  static final Workload TINY =
      WorkloadReader.parse(
          """
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
    List<Recording.Attempt> attempts =
        List.of(
            attempt(0, 0.6, false),
            attempt(0, 1.0, true),
            attempt(0, 2.9, true),
            attempt(0, 4.9, true),
            attempt(1, 0.8, true),
            attempt(1, 3.9, true),
            attempt(1, 4.5, false));
    List<Recording.Call> calls =
        List.of(
            call(0, 0.5, 1.5, Recording.Outcome.OK, 200, 1),
            call(0, 1.5, 3.0, Recording.Outcome.OK, 100, 0),
            call(0, 3.0, 5.0, Recording.Outcome.OK, 100, 0),
            call(1, 0.2, 0.9, Recording.Outcome.OK, 100, 0),
            call(1, 2.0, 4.0, Recording.Outcome.OK, 300, 3),
            new Recording.Call(
                1, s(4.0), -1, Recording.Outcome.UNFINISHED, 50_000_000L, 1, 1, s(4.0)));
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
    // DRF: both queues cost (1 req, 100 tok) = 0.1 dominant share; weights 0.6/0.4; requests and
    // tokens
    // run out together at 6 + 4 calls/s; demand caps (10 and 20 calls/s) do not bind.
    assertThat(keyed(v, "ideal_rps_by_queue").get("a")).isCloseTo(6, within(1e-9));
    assertThat(keyed(v, "ideal_rps_by_queue").get("b")).isCloseTo(4, within(1e-9));
    // Achievements 0.125 and 0.0625: Jain = 0.1875² / (2 · 0.01953125) = 0.9.
    assertThat(scalar(v, "achievement_jain")).isCloseTo(0.9, within(1e-12));
    assertThat(scalar(v, "priority_order_held")).isEqualTo(1.0);
    assertThat(keyed(v, "p95_latency_ms_by_priority"))
        .containsEntry("P1", 2000.0)
        .containsEntry("P2", 2000.0);
    assertThat(scalar(v, "slot_ms_per_ok")).isCloseTo(850 / 5.0, within(1e-9));
    // Deferrals of every call, the unfinished one's too: 1 + 3 + 1 over 5 successful calls; three
    // calls were deferred at least once; the successful calls alone: 1 + 3. The three differ, so
    // none of them can pass by reading another's count.
    assertThat(scalar(v, "deferrals_per_ok")).isCloseTo(5 / 5.0, within(1e-12));
    assertThat(scalar(v, "deferred_calls_per_ok")).isCloseTo(3 / 5.0, within(1e-12));
    assertThat(scalar(v, "ok_deferrals_per_ok")).isCloseTo(4 / 5.0, within(1e-12));
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
    Map<String, RunMetrics.Value> v =
        Metrics.compute(
                TINY, new Recording(r.endNanos(), r.attempts(), calls, r.queueFinishedNanos()))
            .values();
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

  @Test
  void upstreamMaxPerWindowCountsEveryAttemptAndTheTokensTheProviderCounted() {
    Map<String, RunMetrics.Value> v = Metrics.compute(TINY, handMade()).values();
    // Attempts at 0.6 (429, not counted), 0.8 and 1.0 fall in one 1 s window: 3 requests, 200
    // tokens.
    assertThat(keyed(v, "upstream_max_per_window"))
        .containsEntry("requests", 3.0)
        .containsEntry("tokens", 200.0);
  }

  /**
   * The worked example of the Metrics javadoc: a tenant that starts at 60 s of 100 is entitled to
   * 12, not 30.
   */
  @Test
  void idealIsTimeResolvedAtEveryStartAndStop() {
    Workload w =
        WorkloadReader.parse(
            """
        name: late
        duration_s: 100
        upstream: {requests_per_s: 60, latency_ms: [100, 100]}
        priorities: {P1: 1}
        worker: {slots: 2}
        tenants:
          - {name: early, priority: P1, open_loop_rps: 1000}
          - {name: late, priority: P1, open_loop_rps: 1000, start_s: 60}
        """);
    Recording r =
        new Recording(
            s(100),
            List.of(),
            List.of(
                call(0, 10, 11, Recording.Outcome.OK, 0, 0),
                call(1, 70, 71, Recording.Outcome.OK, 0, 0)),
            new long[] {-1, -1});
    Map<String, Double> ideal = keyed(Metrics.compute(w, r).values(), "ideal_rps_by_queue");
    assertThat(ideal.get("early")).isCloseTo(48, within(1e-9));
    assertThat(ideal.get("late")).isCloseTo(12, within(1e-9));
  }

  @Test
  void aQueueThatStopsIsEntitledOnlyWhileItSubmits() {
    Workload w =
        WorkloadReader.parse(
            """
        name: stop
        duration_s: 50
        upstream: {requests_per_s: 40, latency_ms: [100, 100]}
        priorities: {P1: 3, P2: 1}
        worker: {slots: 2}
        tenants:
          - {name: a, priority: P1, open_loop_rps: 1000, stop_s: 25}
          - {name: b, priority: P2, open_loop_rps: 1000}
        """);
    Recording r =
        new Recording(
            s(50),
            List.of(),
            List.of(
                call(0, 10, 11, Recording.Outcome.OK, 0, 0),
                call(1, 10, 11, Recording.Outcome.OK, 0, 0)),
            new long[] {-1, -1});
    Map<String, Double> ideal = keyed(Metrics.compute(w, r).values(), "ideal_rps_by_queue");
    // [0, 25]: 30 / 10 by weights 3:1; [25, 50]: b alone takes 40.
    assertThat(ideal.get("a")).isCloseTo(15, within(1e-9));
    assertThat(ideal.get("b")).isCloseTo(25, within(1e-9));
  }

  @Test
  void capUtilizationAndIdealFollowTheScheduleLessOutsideTraffic() {
    Workload w =
        WorkloadReader.parse(
            """
        name: drift
        duration_s: 10
        upstream:
          requests_per_s: 10
          latency_ms: [100, 100]
          schedule: [{at_s: 5, requests_per_s: 20}]
          outside: {requests_per_s: 2}
        priorities: {P1: 1}
        worker: {slots: 2}
        tenants:
          - {name: a, priority: P1, open_loop_rps: 1000}
        """);
    List<Recording.Attempt> attempts = new java.util.ArrayList<>();
    for (int i = 0; i < 13; i++) {
      attempts.add(attempt(0, 0.5 * i, true));
    }
    attempts.add(attempt(0, 7, false));
    Recording r =
        new Recording(
            s(10), attempts, List.of(call(0, 1, 2, Recording.Outcome.OK, 0, 0)), new long[] {-1});
    Map<String, RunMetrics.Value> v = Metrics.compute(w, r).values();
    // ∫ (cap − outside) = (10 − 2)·5 + (20 − 2)·5 = 130 requests; 13 counted.
    assertThat(keyed(v, "cap_utilization").get("requests")).isCloseTo(0.1, within(1e-12));
    assertThat(keyed(v, "ideal_rps_by_queue").get("a")).isCloseTo(13, within(1e-9));
  }

  @Test
  void deadlinesDecideExpiryAndGoodput() {
    Workload w =
        WorkloadReader.parse(
            """
        name: deadline
        duration_s: 10
        upstream: {requests_per_s: 10, latency_ms: [100, 100]}
        priorities: {P1: 0.5, P2: 0.5}
        worker: {slots: 2}
        tenants:
          - {name: d, priority: P1, open_loop_rps: 5, deadline_s: 2}
          - {name: free, priority: P2, open_loop_rps: 5}
        """);
    List<Recording.Call> calls =
        List.of(
            new Recording.Call(0, s(1), s(2), Recording.Outcome.OK, 0, 0, 1, s(1.5)), // in time
            new Recording.Call(
                0, s(1), s(4), Recording.Outcome.OK, 0, 2, 1, s(3.9)), // answered late
            new Recording.Call(
                0, s(2), s(2), Recording.Outcome.EXPIRED, 0, 0, 0, -1), // refused by the gate
            new Recording.Call(0, s(3), s(3.5), Recording.Outcome.FAILED, 0, 0, 1, s(3)), // failed
            new Recording.Call(
                0, s(7), -1, Recording.Outcome.UNFINISHED, 0, 0, 0, -1), // due 9: expired
            new Recording.Call(
                0, s(8.5), -1, Recording.Outcome.UNFINISHED, 0, 0, 0, -1), // due 10.5: not yet
            new Recording.Call(
                1, s(1), s(6), Recording.Outcome.OK, 0, 0, 2, s(5.8))); // no deadline
    Map<String, RunMetrics.Value> v =
        Metrics.compute(w, new Recording(s(10), List.of(), calls, new long[] {-1, -1})).values();
    assertThat(scalar(v, "expired_share")).isCloseTo(3 / 7.0, within(1e-12));
    assertThat(scalar(v, "calls_failed")).isEqualTo(1.0);
    assertThat(scalar(v, "ok_rps_total")).isCloseTo(0.3, within(1e-12));
    assertThat(scalar(v, "goodput_rps")).isCloseTo(0.2, within(1e-12));
    assertThat(keyed(v, "goodput_rps_by_priority"))
        .containsEntry("P1", 0.1)
        .containsEntry("P2", 0.1);
    assertThat(keyed(v, "http_p95_latency_ms_by_priority").get("P1")).isCloseTo(500, within(1e-6));
    assertThat(keyed(v, "http_p95_latency_ms_by_priority").get("P2")).isCloseTo(200, within(1e-6));
    assertThat(keyed(v, "p95_latency_ms_by_priority").get("P1")).isCloseTo(3000, within(1e-6));
  }

  @Test
  void capRecoveryIsTheTimeFromARaiseUntilABinUsesTheNewCapAgain() {
    Workload w =
        WorkloadReader.parse(
            """
        name: raise
        duration_s: 10
        upstream:
          requests_per_s: 10
          latency_ms: [100, 100]
          schedule: [{at_s: 2, requests_per_s: 5}, {at_s: 4, requests_per_s: 10}]
        priorities: {P1: 1}
        worker: {slots: 2}
        tenants:
          - {name: a, priority: P1, workflows: 2}
        """);
    // After the raise at 4 s: 5 requests in [4, 5), 8 in [5, 6), 9 (= 90 % of 10) in [6, 7).
    List<Recording.Attempt> attempts = new java.util.ArrayList<>();
    int[] perSecond = {5, 8, 9};
    for (int bin = 0; bin < perSecond.length; bin++) {
      for (int k = 0; k < perSecond[bin]; k++) {
        attempts.add(attempt(0, 4 + bin + k * 0.1, true));
      }
    }
    attempts.add(attempt(0, 6.95, false));
    Recording r = new Recording(s(10), attempts, List.of(), new long[] {-1});
    assertThat(keyed(Metrics.compute(w, r).values(), "cap_recovery_s"))
        .containsExactly(Map.entry("requests", 3.0));
    // The lowering at 2 s is no raise; without a raise there is no such metric.
    assertThat(Metrics.compute(TINY, handMade()).values()).doesNotContainKey("cap_recovery_s");
    // Never back before the run ends: the time until then.
    Recording never = new Recording(s(10), attempts.subList(0, 5), List.of(), new long[] {-1});
    assertThat(keyed(Metrics.compute(w, never).values(), "cap_recovery_s"))
        .containsEntry("requests", 6.0);
  }

  @Test
  void callsRefusedUntilAResetAreCountedByReasonWithTheEarliestReset() {
    Workload calendar =
        WorkloadReader.parse(
            """
        name: calendar
        duration_s: 10
        upstream: {requests_per_s: 10, tokens_per_s: 1000}
        priorities: {P1: 1}
        worker: {slots: 2}
        gate:
          per_day: {tokens: 5000}
          quotas: {tenants: {a: {tokens: 100, per: day}}}
        tenants:
          - {name: a, priority: P1, workflows: 1}
        """);
    List<Recording.Call> calls =
        List.of(
            call(0, 1, 2, Recording.Outcome.OK, 100, 0),
            refused(0, 3, RejectReason.QUOTA_EXHAUSTED, s(9)),
            refused(0, 4, RejectReason.LIMIT_REACHED, s(8)),
            refused(0, 5, RejectReason.LIMIT_REACHED, s(7)),
            refused(0, 6, RejectReason.NEVER_FITS, -1));
    Recording r = new Recording(s(10), List.of(), calls, new long[] {-1});
    Map<String, RunMetrics.Value> v = Metrics.compute(calendar, r).values();
    assertThat(keyed(v, "calls_rejected_by_reason"))
        .containsExactly(Map.entry("LIMIT_REACHED", 2.0), Map.entry("QUOTA_EXHAUSTED", 1.0));
    assertThat(keyed(v, "limit_reset_s"))
        .containsExactly(Map.entry("LIMIT_REACHED", 7.0), Map.entry("QUOTA_EXHAUSTED", 9.0));
    assertThat(scalar(v, "calls_failed")).isEqualTo(4.0);
    assertThat(Metrics.compute(TINY, handMade()).values())
        .doesNotContainKeys("calls_rejected_by_reason", "limit_reset_s");
  }

  private static Recording.Call refused(
      int queue, double at, RejectReason reason, long resetAtNanos) {
    return new Recording.Call(
        queue, s(at), s(at), Recording.Outcome.FAILED, 0, 0, 0, -1, reason, resetAtNanos);
  }

  private static double scalar(Map<String, RunMetrics.Value> v, String name) {
    return ((RunMetrics.Scalar) v.get(name)).value();
  }

  private static Map<String, Double> keyed(Map<String, RunMetrics.Value> v, String name) {
    return ((RunMetrics.ByKey) v.get(name)).values();
  }

  private static Recording.Attempt attempt(int queue, double start, boolean ok) {
    long t = s(start);
    return new Recording.Attempt(
        queue, t, ok ? t + 100_000_000L : t, ok ? 200 : 429, ok ? null : "requests", 100, ok);
  }

  private static Recording.Call call(
      int queue,
      double submitted,
      double finished,
      Recording.Outcome outcome,
      long slotMs,
      int deferrals) {
    return new Recording.Call(
        queue, s(submitted), s(finished), outcome, slotMs * 1_000_000L, deferrals, 1, s(submitted));
  }

  private static long s(double seconds) {
    return Math.round(seconds * 1e9);
  }
}
