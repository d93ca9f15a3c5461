package io.backpressure.eval.measure;

import io.backpressure.core.Dimension;
import io.backpressure.core.RejectReason;
import io.backpressure.eval.workload.Workload;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.function.Function;

/**
 * Computes the metrics defined in eval/README.md from one {@link Recording}, exactly as defined
 * there.
 *
 * <ul>
 *   <li>The <b>contention window</b> runs from {@code warmup_s} to the end of the run, or until the
 *       first closed-loop queue runs out of calls, whichever comes first (a tenant's {@code stop_s}
 *       and an open-loop tenant's last arrival do not end it); both ends included. Window metrics
 *       count calls that succeeded inside it ({@code ok_rps_*}, {@code goodput_*}, the p95s),
 *       attempts that reached the upstream inside it ({@code cap_utilization}), and call
 *       submissions inside it (which queues are <i>active</i>).
 *   <li>Whole-run metrics: {@code http_429_share} (429s / attempts), {@code slot_ms_per_ok}
 *       (slot-held time of every call, up to the end of the run / successful calls), {@code
 *       deferrals_per_ok}, {@code deferred_calls_per_ok} (calls deferred at least once / successful
 *       calls: the least {@code deferrals_per_ok} of any gate that defers a call rather than
 *       refusing it, reached when each such call is deferred exactly once), {@code
 *       ok_deferrals_per_ok} (the deferrals of the successful calls alone / successful calls: the
 *       work an answered call cost, whatever the calls still waiting at the end took), {@code
 *       expired_share} and {@code calls_failed}.
 *   <li>{@code ideal_rps_by_queue}, <b>time-resolved</b>: the window is cut at every tenant's
 *       {@code start_s} and {@code stop_s} (and every change of the caps in use: an {@code
 *       upstream.schedule} entry) inside it. In each phase, {@link DrfFilling} shares the caps less
 *       outside traffic among the active queues whose tenant submits during that whole phase
 *       ({@code start_s ≤} its start, no {@code stop_s} before its end), weights {@code w_t · ω_k}
 *       (the workload's weights, whatever the configuration), cost per call {@code (1, mean prompt
 *       + mean completion after the max_tokens clamp)}, demand capped at {@code open_loop_rps},
 *       {@code workflows · 1000 / mean latency ms}, or a trace tenant's arrivals in the phase per
 *       second (a workload with trace tenants is also cut at every multiple of the provider's
 *       period, so a trace's bursts count where they arrive). A queue's ideal is its phase rates
 *       weighted by phase length, over the window's length. Worked example: a 100 s window from 0,
 *       two equal queues on a 60 req/s cap, one starting at 60 s: in [0, 60] the first gets 60, in
 *       [60, 100] each gets 30; ideals (60·60 + 30·40)/100 = 48 and 30·40/100 = 12.
 *   <li>{@code achievement_jain}: Jain's index of {@code ok_rps / ideal_rps} over the active
 *       queues.
 *   <li>{@code priority_order_held}: 1 when the per-class OK rate strictly decreases from the
 *       highest class down, over the classes with an active queue, else 0 (its mean over repeats is
 *       the fraction of repeats in which the order held).
 *   <li>{@code p95_latency_ms_by_priority}: nearest-rank p95 of submission-to-success time; {@code
 *       http_p95_latency_ms_by_priority}: of first-upstream-attempt-to-success time (in-place
 *       retries and their backoff included; gate deferrals and the wait for a slot before the first
 *       attempt excluded).
 *   <li>{@code cap_utilization.{dim}}: what the workload's calls consumed in the window / ∫ (true
 *       cap(t) − outside(t)) dt over it, the true cap from {@code upstream} and its {@code
 *       schedule}.
 *   <li>A call is <b>expired</b> when the gate refused it for its deadline or its caller gave it up
 *       at the deadline ({@link Recording.Outcome#EXPIRED}), or when its tenant has a {@code
 *       deadline_s} and the call was answered after it, or was still unanswered at the end of the
 *       run with its deadline past. {@code expired_share}: expired calls / calls submitted. {@code
 *       goodput_rps} ({@code _by_priority}): successful calls answered within their deadline (every
 *       successful call when there is none), per second of the window.
 *   <li>{@code calls_failed}: calls that ended in an error other than expiry.
 *   <li>{@code calls_rejected_by_reason.{LIMIT_REACHED, QUOTA_EXHAUSTED}} and {@code
 *       limit_reset_s.{reason}} (only for a workload with calendar limits, quotas or the provider's
 *       caps per day): the calls the gate refused until a calendar limit or a quota resets (part of
 *       {@code calls_failed}), and the earliest reset instant they were given, in seconds after the
 *       run's start (undefined when none was refused).
 *   <li>{@code upstream_max_per_window.{dim}}: the most the provider saw in any window of its
 *       period ({@link UpstreamWindows}): from the attempts in sim, from the provider's own records
 *       in real mode.
 *   <li>{@code contention_window_s}: the window's length (an addition of this project; it tells how
 *       long the window metrics were measured over).
 *   <li>{@code cap_recovery_s.{dim}} (an addition of this project; only for a dimension whose cap
 *       an {@code upstream.schedule} entry raises): how long after a raise the workload's calls use
 *       the new cap again — see {@link #capRecovery}.
 * </ul>
 *
 * {@code gate_latency_ms} and the other wall-clock quantities are produced only by a real run (see
 * {@link #measured}).
 */
public final class Metrics {
  /** The heatmap has at most this many time bins. */
  static final int MAX_BINS = 50;

  private Metrics() {}

  /** The end of the contention window of {@code recording}, in nanoseconds. */
  public static long windowEnd(Workload workload, Recording recording) {
    long end = recording.endNanos();
    long[] finished = recording.queueFinishedNanos();
    for (int q = 0; q < finished.length; q++) {
      if (finished[q] >= 0 && !workload.tenants().get(q).openLoop()) {
        end = Math.min(end, finished[q]);
      }
    }
    return end;
  }

  /** Whether {@code call} expired: see the class comment. */
  static boolean expired(Workload workload, Recording.Call call, long runEnd) {
    if (call.outcome() == Recording.Outcome.EXPIRED) {
      return true;
    }
    long deadline = workload.tenants().get(call.queue()).deadlineNanos();
    if (deadline == Long.MAX_VALUE) {
      return false;
    }
    long due = call.submittedNanos() + deadline;
    return call.outcome() == Recording.Outcome.OK
        ? call.finishedNanos() > due
        : call.outcome() == Recording.Outcome.UNFINISHED && due <= runEnd;
  }

  public static RunMetrics compute(Workload workload, Recording recording) {
    List<Workload.Tenant> tenants = workload.tenants();
    int n = tenants.size();
    int classes = workload.priorities().size();
    long start = Workload.nanos(workload.warmupS());
    long end = windowEnd(workload, recording);
    double window = (end - start) / 1e9;

    long attempts = recording.attempts().size();
    long rejected = recording.attempts().stream().filter(Recording.Attempt::rateLimited).count();

    double[] okInWindow = new double[n];
    double[] goodInWindow = new double[n];
    boolean[] active = new boolean[n];
    List<List<Double>> latencies = new ArrayList<>();
    List<List<Double>> httpLatencies = new ArrayList<>();
    for (int k = 0; k < classes; k++) {
      latencies.add(new ArrayList<>());
      httpLatencies.add(new ArrayList<>());
    }
    long okTotal = 0;
    long expired = 0;
    long failed = 0;
    double slotNanos = 0;
    long deferrals = 0;
    long deferredCalls = 0;
    long okDeferrals = 0;
    for (Recording.Call call : recording.calls()) {
      slotNanos += call.slotHeldNanos();
      deferrals += call.deferrals();
      deferredCalls += call.deferrals() > 0 ? 1 : 0;
      if (call.submittedNanos() >= start && call.submittedNanos() <= end) {
        active[call.queue()] = true;
      }
      boolean late = expired(workload, call, recording.endNanos());
      expired += late ? 1 : 0;
      failed += call.outcome() == Recording.Outcome.FAILED ? 1 : 0;
      if (call.outcome() != Recording.Outcome.OK) {
        continue;
      }
      okTotal++;
      okDeferrals += call.deferrals();
      if (call.finishedNanos() >= start && call.finishedNanos() <= end) {
        okInWindow[call.queue()]++;
        goodInWindow[call.queue()] += late ? 0 : 1;
        int k = workload.classIndex(tenants.get(call.queue()).priority());
        latencies.get(k).add((call.finishedNanos() - call.submittedNanos()) / 1e6);
        if (call.firstAttemptNanos() >= 0) {
          httpLatencies.get(k).add((call.finishedNanos() - call.firstAttemptNanos()) / 1e6);
        }
      }
    }

    Map<String, RunMetrics.Value> values = new LinkedHashMap<>();
    values.put("http_429_share", scalar(attempts == 0 ? Double.NaN : (double) rejected / attempts));
    double[] okRps = perSecond(okInWindow, window);
    values.put("ok_rps_total", scalar(sum(okRps)));
    Map<String, Double> byClass = byClass(workload, okRps);
    values.put("ok_rps_by_priority", new RunMetrics.ByKey(byClass));

    Map<String, Double> byQueue = new LinkedHashMap<>();
    for (int q = 0; q < n; q++) {
      byQueue.put(tenants.get(q).name(), okRps[q]);
    }
    values.put("ok_rps_by_queue", new RunMetrics.ByKey(byQueue));

    double[] ideal = ideal(workload, active, start, end);
    Map<String, Double> idealByQueue = new LinkedHashMap<>();
    List<Double> achievements = new ArrayList<>();
    for (int q = 0; q < n; q++) {
      if (active[q]) {
        idealByQueue.put(tenants.get(q).name(), ideal[q]);
        achievements.add(okRps[q] / ideal[q]);
      }
    }
    values.put("ideal_rps_by_queue", new RunMetrics.ByKey(idealByQueue));
    values.put(
        "achievement_jain",
        scalar(
            window > 0
                ? Stats.jain(achievements.stream().mapToDouble(Double::doubleValue).toArray())
                : Double.NaN));

    values.put(
        "priority_order_held",
        scalar(window > 0 ? orderHeld(workload, byClass, active) : Double.NaN));
    values.put(
        "p95_latency_ms_by_priority",
        new RunMetrics.ByKey(p95ByClass(workload, byClass, latencies)));
    values.put("slot_ms_per_ok", scalar(okTotal == 0 ? Double.NaN : slotNanos / 1e6 / okTotal));
    values.put(
        "deferrals_per_ok", scalar(okTotal == 0 ? Double.NaN : (double) deferrals / okTotal));
    values.put(
        "deferred_calls_per_ok",
        scalar(okTotal == 0 ? Double.NaN : (double) deferredCalls / okTotal));
    values.put(
        "ok_deferrals_per_ok", scalar(okTotal == 0 ? Double.NaN : (double) okDeferrals / okTotal));
    values.put(
        "cap_utilization", new RunMetrics.ByKey(utilization(workload, recording, start, end)));
    values.put("contention_window_s", scalar(Math.max(0, window)));
    Map<String, Double> recovery = capRecovery(workload, recording);
    if (!recovery.isEmpty()) {
      values.put("cap_recovery_s", new RunMetrics.ByKey(recovery));
    }
    int submitted = recording.calls().size();
    values.put("expired_share", scalar(submitted == 0 ? Double.NaN : (double) expired / submitted));
    double[] goodRps = perSecond(goodInWindow, window);
    values.put("goodput_rps", scalar(sum(goodRps)));
    values.put("goodput_rps_by_priority", new RunMetrics.ByKey(byClass(workload, goodRps)));
    values.put(
        "http_p95_latency_ms_by_priority",
        new RunMetrics.ByKey(p95ByClass(workload, byClass, httpLatencies)));
    values.put("calls_failed", scalar(failed));
    if (workload.followsCalendar()) {
      terminal(values, recording);
    }
    if (recording.measured() != null) {
      measured(values, recording, slotNanos);
    } else {
      values.put(
          "upstream_max_per_window",
          new RunMetrics.ByKey(UpstreamWindows.fromAttempts(workload, recording.attempts())));
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
    double[][] usage = new double[2][bins];
    for (Recording.Attempt a : recording.attempts()) {
      if (a.counted()) {
        int b = (int) Math.min(bins - 1, a.startNanos() / 1e9 / bin);
        usage[0][b] += 1 / bin;
        usage[1][b] += a.tokens() / bin;
      }
    }
    return new RunMetrics(values, heat, usage, bin);
  }

  /** The reasons a calendar limit or a quota refuses a call until its reset. */
  private static final List<RejectReason> UNTIL_RESET =
      List.of(RejectReason.LIMIT_REACHED, RejectReason.QUOTA_EXHAUSTED);

  /**
   * {@code calls_rejected_by_reason} and {@code limit_reset_s}: the calls the gate refused until a
   * calendar limit or a quota resets, by reason, and the earliest reset instant they were given.
   */
  private static void terminal(Map<String, RunMetrics.Value> values, Recording recording) {
    Map<String, Double> count = new LinkedHashMap<>();
    Map<String, Double> reset = new LinkedHashMap<>();
    for (RejectReason reason : UNTIL_RESET) {
      count.put(reason.name(), 0.0);
      reset.put(reason.name(), Double.NaN);
    }
    for (Recording.Call call : recording.calls()) {
      if (call.rejectReason() == null || !UNTIL_RESET.contains(call.rejectReason())) {
        continue;
      }
      String reason = call.rejectReason().name();
      count.merge(reason, 1.0, Double::sum);
      if (call.resetAtNanos() >= 0) {
        double at = call.resetAtNanos() / 1e9;
        reset.merge(reason, at, (a, b) -> Double.isNaN(a) ? b : Math.min(a, b));
      }
    }
    values.put("calls_rejected_by_reason", new RunMetrics.ByKey(count));
    values.put("limit_reset_s", new RunMetrics.ByKey(reset));
  }

  private static double[] perSecond(double[] counts, double window) {
    double[] rates = new double[counts.length];
    for (int q = 0; q < counts.length; q++) {
      rates[q] = window > 0 ? counts[q] / window : Double.NaN;
    }
    return rates;
  }

  private static double sum(double[] values) {
    double total = 0;
    for (double v : values) {
      total += v;
    }
    return total;
  }

  /** Per class with at least one tenant: the sum of its tenants' {@code perQueue}. */
  private static Map<String, Double> byClass(Workload workload, double[] perQueue) {
    Map<String, Double> byClass = new LinkedHashMap<>();
    for (Workload.PriorityWeight k : workload.priorities()) {
      double sum = 0;
      boolean present = false;
      for (int q = 0; q < perQueue.length; q++) {
        if (workload.tenants().get(q).priority().equals(k.name())) {
          sum += perQueue[q];
          present = true;
        }
      }
      if (present) {
        byClass.put(k.name(), sum);
      }
    }
    return byClass;
  }

  private static Map<String, Double> p95ByClass(
      Workload workload, Map<String, Double> byClass, List<List<Double>> latencies) {
    Map<String, Double> p95 = new LinkedHashMap<>();
    for (int k = 0; k < workload.priorities().size(); k++) {
      String name = workload.priorities().get(k).name();
      if (byClass.containsKey(name)) {
        p95.put(
            name,
            Stats.percentile(
                latencies.get(k).stream().mapToDouble(Double::doubleValue).toArray(), 95));
      }
    }
    return p95;
  }

  /**
   * Per capped dimension: what the workload's counted attempts consumed in [{@code start}, {@code
   * end}] / ∫ (true cap − outside) dt over it.
   */
  public static Map<String, Double> utilization(
      Workload workload, Recording recording, long start, long end) {
    Map<String, Double> utilization = new LinkedHashMap<>();
    double requests = 0;
    double tokens = 0;
    for (Recording.Attempt a : recording.attempts()) {
      if (a.counted() && a.startNanos() >= start && a.startNanos() <= end) {
        requests++;
        tokens += a.tokens();
      }
    }
    Workload.Upstream up = workload.upstream();
    if (up.requestsPerS() != null) {
      utilization.put(
          Dimension.REQUESTS, requests / capacity(workload, Dimension.REQUESTS, start, end));
    }
    if (up.tokensPerS() != null) {
      utilization.put(Dimension.TOKENS, tokens / capacity(workload, Dimension.TOKENS, start, end));
    }
    return utilization;
  }

  /** A bin of {@link #capRecovery} is used again when it holds this share of its capacity. */
  static final double RECOVERED = 0.9;

  /**
   * Per dimension whose cap a schedule entry raises: the longest, over those raises, of the time
   * from the raise until the end of the first bin after it in which the workload's counted attempts
   * reach {@link #RECOVERED} of the new cap less outside traffic. Bins are one provider period long
   * (at least 1 s) and start at the raise. When no bin does before the next schedule entry or the
   * end of the run, the time until then. Worked example: 60 req/s raised from 30 at 70 s; the
   * workload sends 40 requests in [70, 71) and 58 in [71, 72): recovery 2 s.
   */
  static Map<String, Double> capRecovery(Workload workload, Recording recording) {
    Map<String, Double> recovery = new LinkedHashMap<>();
    Workload.Upstream up = workload.upstream();
    long bin = Workload.nanos(Math.max(1, up.periodS()));
    List<Workload.CapChange> schedule = up.schedule();
    for (String dim : List.of(Dimension.REQUESTS, Dimension.TOKENS)) {
      for (int i = 0; i < schedule.size(); i++) {
        double at = schedule.get(i).atS();
        Double before = up.capsAt(Math.nextDown(at)).of(dim);
        Double after = up.capsAt(at).of(dim);
        if (before == null || after == null || !(after > before)) {
          continue;
        }
        long from = Workload.nanos(at);
        long until =
            Math.min(
                recording.endNanos(),
                i + 1 < schedule.size()
                    ? Workload.nanos(schedule.get(i + 1).atS())
                    : Long.MAX_VALUE);
        double need = RECOVERED * (after - up.outsideOf(dim)) * bin / 1e9;
        long took = until - from;
        for (long start = from; start + bin <= until; start += bin) {
          if (used(recording, dim, start, start + bin) >= need) {
            took = start + bin - from;
            break;
          }
        }
        recovery.merge(dim, took / 1e9, Math::max);
      }
    }
    return recovery;
  }

  /**
   * What the workload's counted attempts that started in [{@code start}, {@code end}) used of
   * {@code dim}.
   */
  private static double used(Recording recording, String dim, long start, long end) {
    double used = 0;
    for (Recording.Attempt a : recording.attempts()) {
      if (a.counted() && a.startNanos() >= start && a.startNanos() < end) {
        used += dim.equals(Dimension.REQUESTS) ? 1 : a.tokens();
      }
    }
    return used;
  }

  /**
   * ∫ (true cap(t) − outside(t)) dt of {@code dimension} over [{@code start}, {@code end}], in
   * units of the dimension; NaN for an empty window.
   */
  static double capacity(Workload workload, String dimension, long start, long end) {
    if (end <= start) {
      return Double.NaN;
    }
    Workload.Upstream up = workload.upstream();
    double total = 0;
    List<Long> cuts = cuts(workload, start, end);
    for (int i = 0; i + 1 < cuts.size(); i++) {
      double cap = up.capsAt(cuts.get(i) / 1e9).of(dimension);
      total += Math.max(0, cap - up.outsideOf(dimension)) * (cuts.get(i + 1) - cuts.get(i)) / 1e9;
    }
    return total;
  }

  /**
   * The instants that cut [{@code start}, {@code end}] into phases: its ends, every tenant's {@code
   * start_s} and {@code stop_s} and every schedule entry inside it, sorted.
   */
  static List<Long> cuts(Workload workload, long start, long end) {
    TreeSet<Long> cuts = new TreeSet<>(List.of(start, end));
    List<Double> instants = new ArrayList<>();
    for (Workload.Tenant t : workload.tenants()) {
      instants.add(t.startS());
      if (t.stopS() != null) {
        instants.add(t.stopS());
      }
    }
    workload.upstream().schedule().forEach(c -> instants.add(c.atS()));
    if (workload.tenants().stream().anyMatch(Workload.Tenant::replaysTrace)) {
      double period = workload.upstream().periodS();
      for (long k = (long) Math.ceil(start / 1e9 / period); k * period * 1e9 < end; k++) {
        instants.add(k * period);
      }
    }
    for (double s : instants) {
      long nanos = Workload.nanos(s);
      if (nanos > start && nanos < end) {
        cuts.add(nanos);
      }
    }
    return new ArrayList<>(cuts);
  }

  /**
   * The wall-clock metrics of a real run: {@code gate_latency_ms} (p50/p95/p99 of one admission),
   * {@code slot_occupancy} (slot-held time / (slots × run length)), {@code cpu_utilization}, {@code
   * timer_excess_ms} and {@code schedule_to_start_ms} (p50/p95) and {@code http_429_rtt_ms} (p50),
   * each present only when the run produced samples of it; {@code upstream_max_per_window} (the
   * most requests, or tokens, that reached the provider within one upstream period, from its own
   * records) and {@code upstream_window_bound} (cap × period + the gate's burst), per capped
   * dimension; {@code failed_open_admissions} (admissions the fail-open gate let through ungated
   * while Redis did not answer) and {@code workers_lost} (worker processes that died, whose ledgers
   * are lost); with faults ({@link FaultWindows}) {@code upstream_max_outside_faults.requests},
   * {@code upstream_max_after_state_loss.requests} (when a fault lost the state), {@code
   * fault_recovery_s.{fault}}, {@code fault_recovery_rate_rps} and {@code
   * fault_recovery_below_share}.
   */
  private static void measured(
      Map<String, RunMetrics.Value> values, Recording recording, double slotNanos) {
    Recording.Measured m = recording.measured();
    percentiles(values, "gate_latency_ms", m.admissionNanos(), 50, 95, 99);
    values.put("slot_occupancy", scalar(slotNanos / ((double) m.slots() * recording.endNanos())));
    values.put("cpu_utilization", scalar(m.cpuUtilization()));
    percentiles(values, "timer_excess_ms", m.timerExcessNanos(), 50, 95);
    percentiles(values, "schedule_to_start_ms", m.scheduleToStartNanos(), 50, 95);
    percentiles(values, "http_429_rtt_ms", m.rejectionRoundTripNanos(), 50);
    values.put("upstream_max_per_window", new RunMetrics.ByKey(m.upstreamMaxPerWindow()));
    values.put("upstream_window_bound", new RunMetrics.ByKey(m.upstreamWindowBound()));
    values.put("failed_open_admissions", scalar(m.failedOpenAdmissions()));
    values.put("workers_lost", scalar(m.workersLost()));
    FaultWindows.Result faults = m.faultWindows();
    if (faults != null) {
      values.put(
          "upstream_max_outside_faults",
          new RunMetrics.ByKey(Map.of(Dimension.REQUESTS, faults.maxOutsideFaults())));
      if (!Double.isNaN(faults.maxAfterStateLoss())) {
        values.put(
            "upstream_max_after_state_loss",
            new RunMetrics.ByKey(Map.of(Dimension.REQUESTS, faults.maxAfterStateLoss())));
      }
      values.put("fault_recovery_s", new RunMetrics.ByKey(faults.recoveryS()));
      values.put("fault_recovery_rate_rps", scalar(faults.recoveryRateRps()));
      values.put("fault_recovery_below_share", scalar(faults.belowRecoveredShare()));
    }
  }

  private static void percentiles(
      Map<String, RunMetrics.Value> values, String name, long[] nanos, int... ps) {
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

  /**
   * The time-resolved DRF entitlement of each active queue in calls/s over [{@code start}, {@code
   * end}] (0 for inactive queues): see the class comment.
   */
  static double[] ideal(Workload workload, boolean[] active, long start, long end) {
    double[] result = new double[workload.tenants().size()];
    if (end <= start) {
      return result;
    }
    List<Long> cuts = cuts(workload, start, end);
    for (int i = 0; i + 1 < cuts.size(); i++) {
      long a = cuts.get(i);
      long b = cuts.get(i + 1);
      double[] rates = phaseIdeal(workload, active, a, b);
      for (int q = 0; q < result.length; q++) {
        result[q] += rates[q] * (b - a) / (double) (end - start);
      }
    }
    return result;
  }

  /**
   * The DRF filling of phase [{@code a}, {@code b}] over the active queues submitting throughout
   * it.
   */
  private static double[] phaseIdeal(Workload workload, boolean[] active, long a, long b) {
    Workload.Upstream up = workload.upstream();
    Workload.Caps caps = up.capsAt(a / 1e9);
    List<String> dims = new ArrayList<>();
    List<Double> capacities = new ArrayList<>();
    for (String dim : List.of(Dimension.REQUESTS, Dimension.TOKENS)) {
      if (caps.of(dim) != null) {
        dims.add(dim);
        capacities.add(caps.of(dim) - up.outsideOf(dim));
      }
    }
    double[] result = new double[workload.tenants().size()];
    if (capacities.stream().anyMatch(c -> !(c > 0))) {
      return result;
    }
    List<DrfFilling.Queue> queues = new ArrayList<>();
    List<Integer> index = new ArrayList<>();
    for (int q = 0; q < workload.tenants().size(); q++) {
      Workload.Tenant t = workload.tenants().get(q);
      boolean throughout =
          Workload.nanos(t.startS()) <= a && (t.stopS() == null || Workload.nanos(t.stopS()) >= b);
      if (!active[q] || !throughout) {
        continue;
      }
      double[] cost = new double[dims.size()];
      for (int d = 0; d < cost.length; d++) {
        cost[d] = dims.get(d).equals(Dimension.REQUESTS) ? 1 : t.meanTokensPerCall();
      }
      double demand =
          t.replaysTrace()
              ? t.trace().rate(a / 1e9, b / 1e9)
              : t.openLoop()
                  ? t.openLoopRps()
                  : up.meanLatencyMs() > 0
                      ? t.workflows() * 1000 / up.meanLatencyMs()
                      : Double.POSITIVE_INFINITY;
      if (!(demand > 0)) {
        continue; // a trace tenant with no arrivals in this phase asks for nothing in it
      }
      queues.add(
          new DrfFilling.Queue(t.weight() * workload.classWeight(t.priority()), cost, demand));
      index.add(q);
    }
    if (queues.isEmpty()) {
      return result;
    }
    double[] rates =
        DrfFilling.allocate(capacities.stream().mapToDouble(Double::doubleValue).toArray(), queues);
    for (int i = 0; i < rates.length; i++) {
      result[index.get(i)] = rates[i];
    }
    return result;
  }

  private static double orderHeld(
      Workload workload, Map<String, Double> byClass, boolean[] active) {
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

  /**
   * Per-bin rows ({@code rows} of each run: heat or usage) averaged over several runs of one
   * workload.
   */
  public static double[][] meanBins(List<RunMetrics> runs, Function<RunMetrics, double[][]> rows) {
    double[][] first = rows.apply(runs.get(0));
    double[][] mean = new double[first.length][];
    for (int q = 0; q < first.length; q++) {
      mean[q] = new double[first[q].length];
      for (RunMetrics run : runs) {
        for (int b = 0; b < mean[q].length; b++) {
          mean[q][b] += rows.apply(run)[q][b] / runs.size();
        }
      }
    }
    return mean;
  }
}
