package io.backpressure.eval;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Computes the metrics of SPEC §6.3 from one {@link Recording}, exactly as defined there.
 *
 * <ul>
 *   <li>The <b>contention window</b> runs from {@code warmup_s} until the first queue finishes all
 *       its calls, or the end of the run; both ends included. Window metrics count calls that
 *       succeeded inside it ({@code ok_rps_*}, {@code p95_latency_ms_by_priority}), attempts that
 *       reached the upstream inside it ({@code cap_utilization}), and call submissions inside it
 *       (which queues are <i>active</i>).
 *   <li>Whole-run metrics: {@code http_429_share} (429s / attempts), {@code slot_ms_per_ok}
 *       (slot-held time of every call, up to the end of the run / successful calls) and {@code
 *       deferrals_per_ok}.
 *   <li>{@code ideal_rps_by_queue}: {@link DrfFilling} over the capped dimensions for the active
 *       queues, weights {@code w_t · ω_k} (the workload's weights, whatever the configuration),
 *       cost per call {@code (1, mean prompt + mean completion after the max_tokens clamp)}, demand
 *       capped at {@code open_loop_rps} or {@code workflows · 1000 / mean latency ms}.
 *   <li>{@code achievement_jain}: Jain's index of {@code ok_rps / ideal_rps} over the active queues.
 *   <li>{@code priority_order_held}: 1 when the per-class OK rate strictly decreases from the highest
 *       class down, over the classes with an active queue, else 0 (its mean over repeats is the
 *       fraction of repeats in which the order held).
 *   <li>{@code p95_latency_ms_by_priority}: nearest-rank p95 of submission-to-success time.
 *   <li>{@code contention_window_s}: the window's length (not in SPEC; it tells how long the
 *       window metrics were measured over).
 * </ul>
 * {@code gate_latency_ms} and the other wall-clock quantities are produced only by a real run
 * (see {@link #measured}).
 */
final class Metrics {
  /** The heatmap has at most this many time bins. */
  static final int MAX_BINS = 50;

  private Metrics() {}

  static RunMetrics compute(Workload workload, Recording recording) {
    List<Workload.Tenant> tenants = workload.tenants();
    int n = tenants.size();
    long start = Simulation.seconds(workload.warmupS());
    long end = recording.endNanos();
    for (long finished : recording.queueFinishedNanos()) {
      if (finished >= 0) {
        end = Math.min(end, finished);
      }
    }
    double window = (end - start) / 1e9;

    long attempts = recording.attempts().size();
    long rejected = recording.attempts().stream().filter(a -> !a.ok()).count();

    double[] okInWindow = new double[n];
    boolean[] active = new boolean[n];
    List<List<Double>> latencies = new ArrayList<>();
    for (int k = 0; k < workload.priorities().size(); k++) {
      latencies.add(new ArrayList<>());
    }
    long okTotal = 0;
    double slotNanos = 0;
    long deferrals = 0;
    for (Recording.Call call : recording.calls()) {
      slotNanos += call.slotHeldNanos();
      deferrals += call.deferrals();
      if (call.submittedNanos() >= start && call.submittedNanos() <= end) {
        active[call.queue()] = true;
      }
      if (call.outcome() != Recording.Outcome.OK) {
        continue;
      }
      okTotal++;
      if (call.finishedNanos() >= start && call.finishedNanos() <= end) {
        okInWindow[call.queue()]++;
        int k = workload.classIndex(tenants.get(call.queue()).priority());
        latencies.get(k).add((call.finishedNanos() - call.submittedNanos()) / 1e6);
      }
    }

    Map<String, RunMetrics.Value> values = new LinkedHashMap<>();
    values.put("http_429_share", scalar(attempts == 0 ? Double.NaN : (double) rejected / attempts));
    double[] okRps = new double[n];
    double total = 0;
    for (int q = 0; q < n; q++) {
      okRps[q] = window > 0 ? okInWindow[q] / window : Double.NaN;
      total += okRps[q];
    }
    values.put("ok_rps_total", scalar(total));

    Map<String, Double> byClass = new LinkedHashMap<>();
    for (Workload.PriorityWeight k : workload.priorities()) {
      double sum = 0;
      boolean present = false;
      for (int q = 0; q < n; q++) {
        if (tenants.get(q).priority().equals(k.name())) {
          sum += okRps[q];
          present = true;
        }
      }
      if (present) {
        byClass.put(k.name(), sum);
      }
    }
    values.put("ok_rps_by_priority", new RunMetrics.ByKey(byClass));

    Map<String, Double> byQueue = new LinkedHashMap<>();
    for (int q = 0; q < n; q++) {
      byQueue.put(tenants.get(q).name(), okRps[q]);
    }
    values.put("ok_rps_by_queue", new RunMetrics.ByKey(byQueue));

    double[] ideal = ideal(workload, active);
    Map<String, Double> idealByQueue = new LinkedHashMap<>();
    List<Double> achievements = new ArrayList<>();
    for (int q = 0; q < n; q++) {
      if (active[q]) {
        idealByQueue.put(tenants.get(q).name(), ideal[q]);
        achievements.add(okRps[q] / ideal[q]);
      }
    }
    values.put("ideal_rps_by_queue", new RunMetrics.ByKey(idealByQueue));
    values.put("achievement_jain", scalar(window > 0
        ? Stats.jain(achievements.stream().mapToDouble(Double::doubleValue).toArray()) : Double.NaN));

    values.put("priority_order_held", scalar(window > 0 ? orderHeld(workload, byClass, active) : Double.NaN));

    Map<String, Double> p95 = new LinkedHashMap<>();
    for (int k = 0; k < workload.priorities().size(); k++) {
      String name = workload.priorities().get(k).name();
      if (byClass.containsKey(name)) {
        p95.put(name, Stats.percentile(latencies.get(k).stream().mapToDouble(Double::doubleValue).toArray(), 95));
      }
    }
    values.put("p95_latency_ms_by_priority", new RunMetrics.ByKey(p95));
    values.put("slot_ms_per_ok", scalar(okTotal == 0 ? Double.NaN : slotNanos / 1e6 / okTotal));
    values.put("deferrals_per_ok", scalar(okTotal == 0 ? Double.NaN : (double) deferrals / okTotal));

    Map<String, Double> utilization = new LinkedHashMap<>();
    Workload.Upstream up = workload.upstream();
    double requests = 0;
    double tokens = 0;
    for (Recording.Attempt a : recording.attempts()) {
      if (a.counted() && a.startNanos() >= start && a.startNanos() <= end) {
        requests++;
        tokens += a.tokens();
      }
    }
    if (up.requestsPerS() != null) {
      utilization.put("requests", window > 0 ? requests / (up.requestsPerS() * window) : Double.NaN);
    }
    if (up.tokensPerS() != null) {
      utilization.put("tokens", window > 0 ? tokens / (up.tokensPerS() * window) : Double.NaN);
    }
    values.put("cap_utilization", new RunMetrics.ByKey(utilization));
    values.put("contention_window_s", scalar(Math.max(0, window)));
    if (recording.measured() != null) {
      measured(values, recording, slotNanos);
    }

    double bin = Math.max(1, Math.ceil(workload.durationS() / MAX_BINS));
    int bins = (int) Math.ceil(recording.endNanos() / 1e9 / bin);
    double[][] heat = new double[n][bins];
    for (Recording.Call call : recording.calls()) {
      if (call.outcome() == Recording.Outcome.OK) {
        int b = (int) Math.min(bins - 1, call.finishedNanos() / 1e9 / bin);
        heat[call.queue()][b] += 1 / bin;
      }
    }
    return new RunMetrics(values, heat, bin);
  }

  /**
   * The wall-clock metrics of a real run: {@code gate_latency_ms} (p50/p95/p99 of one admission),
   * {@code slot_occupancy} (slot-held time / (slots × run length)), {@code cpu_utilization},
   * {@code timer_excess_ms} and {@code schedule_to_start_ms} (p50/p95) and {@code
   * http_429_rtt_ms} (p50), each present only when the run produced samples of it; {@code
   * upstream_max_per_window} (the most requests, or tokens, that reached the provider within one
   * upstream period, from its own records) and {@code upstream_window_bound} (cap × period + the
   * gate's burst), per capped dimension.
   */
  private static void measured(Map<String, RunMetrics.Value> values, Recording recording, double slotNanos) {
    Recording.Measured m = recording.measured();
    percentiles(values, "gate_latency_ms", m.admissionNanos(), 50, 95, 99);
    values.put("slot_occupancy", scalar(slotNanos / ((double) m.slots() * recording.endNanos())));
    values.put("cpu_utilization", scalar(m.cpuUtilization()));
    percentiles(values, "timer_excess_ms", m.timerExcessNanos(), 50, 95);
    percentiles(values, "schedule_to_start_ms", m.scheduleToStartNanos(), 50, 95);
    percentiles(values, "http_429_rtt_ms", m.rejectionRoundTripNanos(), 50);
    values.put("upstream_max_per_window", new RunMetrics.ByKey(m.upstreamMaxPerWindow()));
    values.put("upstream_window_bound", new RunMetrics.ByKey(m.upstreamWindowBound()));
  }

  private static void percentiles(Map<String, RunMetrics.Value> values, String name, long[] nanos, int... ps) {
    Map<String, Double> byP = new LinkedHashMap<>();
    double[] ms = new double[nanos.length];
    for (int i = 0; i < nanos.length; i++) {
      ms[i] = nanos[i] / 1e6;
    }
    for (int p : ps) {
      byP.put("p" + p, ms.length == 0 ? Double.NaN : Stats.percentile(ms, p));
    }
    values.put(name, new RunMetrics.ByKey(byP));
  }

  /** The DRF entitlement of each active queue in calls/s (0 for inactive queues). */
  static double[] ideal(Workload workload, boolean[] active) {
    Workload.Upstream up = workload.upstream();
    List<Double> capacities = new ArrayList<>();
    if (up.requestsPerS() != null) {
      capacities.add(up.requestsPerS());
    }
    if (up.tokensPerS() != null) {
      capacities.add(up.tokensPerS());
    }
    double[] caps = capacities.stream().mapToDouble(Double::doubleValue).toArray();
    List<DrfFilling.Queue> queues = new ArrayList<>();
    List<Integer> index = new ArrayList<>();
    for (int q = 0; q < workload.tenants().size(); q++) {
      if (!active[q]) {
        continue;
      }
      Workload.Tenant t = workload.tenants().get(q);
      double[] cost = new double[caps.length];
      int d = 0;
      if (up.requestsPerS() != null) {
        cost[d++] = 1;
      }
      if (up.tokensPerS() != null) {
        cost[d] = t.meanTokensPerCall();
      }
      double demand = t.openLoop() ? t.openLoopRps()
          : up.meanLatencyMs() > 0 ? t.workflows() * 1000 / up.meanLatencyMs() : Double.POSITIVE_INFINITY;
      queues.add(new DrfFilling.Queue(t.weight() * workload.classWeight(t.priority()), cost, demand));
      index.add(q);
    }
    double[] result = new double[workload.tenants().size()];
    if (queues.isEmpty()) {
      return result;
    }
    double[] rates = DrfFilling.allocate(caps, queues);
    for (int i = 0; i < rates.length; i++) {
      result[index.get(i)] = rates[i];
    }
    return result;
  }

  private static double orderHeld(Workload workload, Map<String, Double> byClass, boolean[] active) {
    double previous = Double.POSITIVE_INFINITY;
    for (Workload.PriorityWeight k : workload.priorities()) {
      boolean classActive = false;
      for (int q = 0; q < active.length; q++) {
        classActive |= active[q] && workload.tenants().get(q).priority().equals(k.name());
      }
      if (!classActive) {
        continue;
      }
      double rate = byClass.get(k.name());
      if (!(rate < previous)) {
        return 0;
      }
      previous = rate;
    }
    return 1;
  }

  private static RunMetrics.Scalar scalar(double v) {
    return new RunMetrics.Scalar(v);
  }

  /** The heat rows of several runs averaged bin by bin (runs of one workload have equal shapes). */
  static double[][] meanHeat(List<RunMetrics> runs) {
    double[][] first = runs.get(0).heat();
    double[][] mean = new double[first.length][];
    for (int q = 0; q < first.length; q++) {
      mean[q] = new double[first[q].length];
      for (RunMetrics run : runs) {
        for (int b = 0; b < mean[q].length; b++) {
          mean[q][b] += run.heat()[q][b] / runs.size();
        }
      }
    }
    return mean;
  }
}
