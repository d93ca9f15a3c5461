package io.backpressure.eval.report;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.backpressure.core.Dimension;
import io.backpressure.eval.measure.Metrics;
import io.backpressure.eval.measure.Recording;
import io.backpressure.eval.measure.RunMetrics;
import io.backpressure.eval.workload.Workload;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.style.markers.SeriesMarkers;

/**
 * What one policy would have done to a workload (usually a recorded trace): per tenant and per
 * class, the wait before the call, the calls past the deadline, the provider's 429s and the share
 * of the caps used, and over time the wait and the token cap used. Built from one simulated run by
 * {@link #measure}; rendered as a text table, {@code summary.json} and two PNG plots.
 *
 * <p>Definitions (every time in milliseconds):
 *
 * <ul>
 *   <li><b>wait</b> of a call: from its submission to its first upstream attempt; for a call that
 *       never reached the provider, to its end (it expired or failed) or to the end of the run
 *       (still waiting). p50 and p95 are nearest-rank percentiles over the calls submitted.
 *   <li><b>late</b>: calls not answered successfully within the deadline of their submission: the
 *       {@code deadlineS} given, else the tenant's {@code deadline_s}; with neither, calls not
 *       answered successfully by the end of the run.
 *   <li><b>429s</b>: the upstream attempts the provider answered 429.
 *   <li><b>tokens, requests</b>: what the provider counted for the tenant's attempts; <b>share of
 *       cap</b>: that over the cap times the run's length (the whole run, warm-up included), so the
 *       tenants' shares add up to the share of the cap the workload used.
 *   <li>the totals' <b>cap used</b> is the evaluation's {@code cap_utilization} (eval/README.md:
 *       the contention window, against the true caps less outside traffic).
 * </ul>
 */
public final class WhatIf {
  private static final ObjectMapper JSON =
      new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

  /** Plot bins: one provider period, at least {@code duration / MAX_BINS}. */
  static final int MAX_BINS = 120;

  private WhatIf() {}

  /**
   * One tenant's or one class's figures.
   *
   * @param name the tenant, or the class
   * @param priority its class
   * @param calls calls submitted
   * @param ok calls answered successfully
   * @param late calls not answered successfully within the deadline
   * @param waitP50Ms median wait before the call
   * @param waitP95Ms 95th percentile of the wait
   * @param http429 the provider's 429 answers
   * @param requests requests the provider counted
   * @param tokens tokens the provider counted
   * @param requestCapShare requests over the request cap times the run's length, or NaN uncapped
   * @param tokenCapShare tokens over the token cap times the run's length, or NaN uncapped
   */
  public record Row(
      String name,
      String priority,
      int calls,
      int ok,
      int late,
      double waitP50Ms,
      double waitP95Ms,
      long http429,
      double requests,
      double tokens,
      double requestCapShare,
      double tokenCapShare) {}

  /**
   * One policy's outcome.
   *
   * @param policy the policy's (configuration's) name
   * @param capUtilization {@code cap_utilization} by dimension
   * @param http429Share 429 answers over all upstream attempts
   * @param byTenant one row per tenant, in workload order
   * @param byClass one row per class, highest first
   * @param binS the plots' bin width in seconds
   * @param waitP95ByClass per class, per bin: p95 wait of the calls submitted in the bin (NaN when
   *     none)
   * @param tokenCapUsed per bin: the tokens the provider counted over the token cap times the bin
   *     (empty when tokens are not capped)
   */
  public record Result(
      String policy,
      Map<String, Double> capUtilization,
      double http429Share,
      List<Row> byTenant,
      List<Row> byClass,
      double binS,
      Map<String, double[]> waitP95ByClass,
      double[] tokenCapUsed) {}

  /**
   * The figures of one run of {@code workload} under policy {@code policy}.
   *
   * @param deadlineS the deadline calls are judged against, or null for each tenant's own
   */
  public static Result measure(
      String policy, Workload workload, Recording recording, Double deadlineS) {
    int tenants = workload.tenants().size();
    long end = recording.endNanos();
    double runS = end / 1e9;
    Workload.Caps caps = workload.upstream().initialCaps();
    double period = workload.upstream().periodS();
    double binS = Math.max(period, workload.durationS() / MAX_BINS);
    int bins = (int) Math.ceil(workload.durationS() / binS);

    List<List<Double>> waits = new ArrayList<>();
    for (int q = 0; q < tenants; q++) {
      waits.add(new ArrayList<>());
    }
    int[] calls = new int[tenants];
    int[] ok = new int[tenants];
    int[] late = new int[tenants];
    Map<String, List<List<Double>>> waitsByClassBin = new LinkedHashMap<>();
    for (Workload.PriorityWeight k : workload.priorities()) {
      List<List<Double>> perBin = new ArrayList<>();
      for (int b = 0; b < bins; b++) {
        perBin.add(new ArrayList<>());
      }
      waitsByClassBin.put(k.name(), perBin);
    }
    for (Recording.Call call : recording.calls()) {
      int q = call.queue();
      Workload.Tenant t = workload.tenants().get(q);
      long until =
          call.firstAttemptNanos() >= 0
              ? call.firstAttemptNanos()
              : call.finishedNanos() >= 0 ? call.finishedNanos() : end;
      double waitMs = (until - call.submittedNanos()) / 1e6;
      waits.get(q).add(waitMs);
      int bin = Math.min(bins - 1, (int) (call.submittedNanos() / 1e9 / binS));
      waitsByClassBin.get(t.priority()).get(bin).add(waitMs);
      calls[q]++;
      boolean answered = call.outcome() == Recording.Outcome.OK && call.finishedNanos() >= 0;
      ok[q] += answered ? 1 : 0;
      Double limit = deadlineS != null ? deadlineS : t.deadlineS();
      boolean inTime =
          answered
              && (limit == null
                  || call.finishedNanos() - call.submittedNanos() <= Workload.nanos(limit));
      late[q] += inTime ? 0 : 1;
    }
    long[] rejected = new long[tenants];
    double[] requests = new double[tenants];
    double[] tokens = new double[tenants];
    double[] tokensByBin = new double[bins];
    long attempts = 0;
    long rejectedAll = 0;
    for (Recording.Attempt a : recording.attempts()) {
      attempts++;
      if (a.rateLimited()) {
        rejected[a.queue()]++;
        rejectedAll++;
      }
      if (a.counted()) {
        requests[a.queue()] += 1;
        tokens[a.queue()] += a.tokens();
        tokensByBin[Math.min(bins - 1, (int) (a.startNanos() / 1e9 / binS))] += a.tokens();
      }
    }

    List<Row> byTenant = new ArrayList<>();
    for (int q = 0; q < tenants; q++) {
      Workload.Tenant t = workload.tenants().get(q);
      byTenant.add(
          row(
              t.name(),
              t.priority(),
              calls[q],
              ok[q],
              late[q],
              waits.get(q),
              rejected[q],
              requests[q],
              tokens[q],
              caps,
              runS));
    }
    List<Row> byClass = new ArrayList<>();
    Map<String, double[]> waitP95ByClass = new LinkedHashMap<>();
    for (Workload.PriorityWeight k : workload.priorities()) {
      int c = 0;
      int o = 0;
      int l = 0;
      long r = 0;
      double req = 0;
      double tok = 0;
      List<Double> w = new ArrayList<>();
      for (int q = 0; q < tenants; q++) {
        if (workload.tenants().get(q).priority().equals(k.name())) {
          c += calls[q];
          o += ok[q];
          l += late[q];
          r += rejected[q];
          req += requests[q];
          tok += tokens[q];
          w.addAll(waits.get(q));
        }
      }
      byClass.add(row(k.name(), k.name(), c, o, l, w, r, req, tok, caps, runS));
      double[] p95 = new double[bins];
      List<List<Double>> perBin = waitsByClassBin.get(k.name());
      for (int b = 0; b < bins; b++) {
        p95[b] = percentile(perBin.get(b), 95);
      }
      waitP95ByClass.put(k.name(), p95);
    }
    double[] tokenCapUsed = new double[caps.tokensPerS() == null ? 0 : bins];
    for (int b = 0; b < tokenCapUsed.length; b++) {
      double width = Math.min(binS, workload.durationS() - b * binS);
      tokenCapUsed[b] = tokensByBin[b] / (caps.tokensPerS() * width);
    }
    RunMetrics metrics = Metrics.compute(workload, recording);
    Map<String, Double> capUtilization = new LinkedHashMap<>();
    if (metrics.values().get("cap_utilization") instanceof RunMetrics.ByKey byKey) {
      capUtilization.putAll(byKey.values());
    }
    return new Result(
        policy,
        capUtilization,
        attempts == 0 ? 0 : rejectedAll / (double) attempts,
        byTenant,
        byClass,
        binS,
        waitP95ByClass,
        tokenCapUsed);
  }

  private static Row row(
      String name,
      String priority,
      int calls,
      int ok,
      int late,
      List<Double> waits,
      long rejected,
      double requests,
      double tokens,
      Workload.Caps caps,
      double runS) {
    return new Row(
        name,
        priority,
        calls,
        ok,
        late,
        percentile(waits, 50),
        percentile(waits, 95),
        rejected,
        requests,
        tokens,
        caps.requestsPerS() == null ? Double.NaN : requests / (caps.requestsPerS() * runS),
        caps.tokensPerS() == null ? Double.NaN : tokens / (caps.tokensPerS() * runS));
  }

  /** The nearest-rank percentile {@code p} of {@code values}, NaN when empty. */
  static double percentile(List<Double> values, double p) {
    if (values.isEmpty()) {
      return Double.NaN;
    }
    double[] sorted = values.stream().mapToDouble(Double::doubleValue).toArray();
    Arrays.sort(sorted);
    int rank = (int) Math.ceil(p / 100 * sorted.length);
    return sorted[Math.max(0, rank - 1)];
  }

  /**
   * The tables as text: per policy, the totals, then one line per class and one per tenant.
   *
   * @param deadline how the calls were judged late, e.g. {@code "30 s"} or {@code "each tenant's
   *     deadline_s"}
   */
  public static String table(List<Result> results, String deadline) {
    StringBuilder out = new StringBuilder();
    for (Result r : results) {
      out.append(
          String.format(
              Locale.ROOT,
              "policy %s: cap used %s, 429s %.1f %% of attempts; late = not answered within %s%n",
              r.policy(),
              capText(r.capUtilization()),
              100 * r.http429Share(),
              deadline));
      out.append(
          String.format(
              Locale.ROOT,
              "  %-20s %-6s %8s %8s %7s %10s %10s %7s %9s %9s%n",
              "tenant/class",
              "class",
              "calls",
              "ok",
              "late",
              "wait p50",
              "wait p95",
              "429s",
              "req cap",
              "tok cap"));
      for (Row row : r.byClass()) {
        out.append(line(row, "*"));
      }
      for (Row row : r.byTenant()) {
        out.append(line(row, " "));
      }
      out.append(System.lineSeparator());
    }
    return out.toString();
  }

  private static String line(Row row, String mark) {
    return String.format(
        Locale.ROOT,
        "%s %-20s %-6s %8d %8d %7d %10s %10s %7d %9s %9s%n",
        mark,
        row.name().length() > 20 ? row.name().substring(0, 20) : row.name(),
        row.priority(),
        row.calls(),
        row.ok(),
        row.late(),
        seconds(row.waitP50Ms()),
        seconds(row.waitP95Ms()),
        row.http429(),
        percent(row.requestCapShare()),
        percent(row.tokenCapShare()));
  }

  private static String capText(Map<String, Double> caps) {
    List<String> parts = new ArrayList<>();
    caps.forEach((dim, v) -> parts.add(dim + " " + percent(v)));
    return parts.isEmpty() ? "-" : String.join(", ", parts);
  }

  private static String seconds(double ms) {
    return Double.isNaN(ms) ? "-" : String.format(Locale.ROOT, "%.2f s", ms / 1000);
  }

  private static String percent(double share) {
    return Double.isNaN(share) ? "-" : String.format(Locale.ROOT, "%.1f %%", 100 * share);
  }

  /** {@code summary.json}: the workload, how lateness was judged, and every policy's figures. */
  public static String json(Workload workload, Double deadlineS, long seed, List<Result> results)
      throws IOException {
    ObjectNode root = JSON.createObjectNode();
    root.put("workload", workload.name());
    root.put("mode", "sim");
    root.put("seed", seed);
    root.put("duration_s", workload.durationS());
    if (deadlineS == null) {
      root.putNull("deadline_s");
    } else {
      root.put("deadline_s", deadlineS);
    }
    ObjectNode policies = root.putObject("policies");
    for (Result r : results) {
      ObjectNode p = policies.putObject(r.policy());
      ObjectNode cap = p.putObject("cap_utilization");
      r.capUtilization().forEach(cap::put);
      p.put("http_429_share", r.http429Share());
      rows(p.putObject("by_class"), r.byClass());
      rows(p.putObject("by_tenant"), r.byTenant());
      ObjectNode overTime = p.putObject("over_time");
      overTime.put("bin_s", r.binS());
      ObjectNode waits = overTime.putObject("wait_p95_ms_by_class");
      r.waitP95ByClass().forEach((k, v) -> numbers(waits.putArray(k), v));
      numbers(overTime.putArray("token_cap_used"), r.tokenCapUsed());
    }
    return JSON.writeValueAsString(root) + System.lineSeparator();
  }

  private static void rows(ObjectNode node, List<Row> rows) {
    for (Row row : rows) {
      ObjectNode o = node.putObject(row.name());
      o.put("class", row.priority());
      o.put("calls", row.calls());
      o.put("ok", row.ok());
      o.put("late", row.late());
      number(o, "wait_p50_ms", row.waitP50Ms());
      number(o, "wait_p95_ms", row.waitP95Ms());
      o.put("http_429", row.http429());
      o.put(Dimension.REQUESTS, row.requests());
      o.put(Dimension.TOKENS, row.tokens());
      number(o, "request_cap_share", row.requestCapShare());
      number(o, "token_cap_share", row.tokenCapShare());
    }
  }

  private static void number(ObjectNode node, String key, double v) {
    if (Double.isNaN(v)) {
      node.putNull(key);
    } else {
      node.put(key, v);
    }
  }

  private static void numbers(ArrayNode array, double[] values) {
    for (double v : values) {
      if (Double.isNaN(v)) {
        array.addNull();
      } else {
        array.add(v);
      }
    }
  }

  /** The plot files {@link #plot} writes. */
  public static final String WAIT_FILE = "what-if-wait.png";

  public static final String CAP_FILE = "what-if-cap.png";

  /**
   * Writes {@link #WAIT_FILE} (p95 wait over time, one line per policy and class) and, when tokens
   * are capped, {@link #CAP_FILE} (token cap used over time, one line per policy) into {@code dir}.
   */
  public static void plot(List<Result> results, Path dir) throws IOException {
    XYChart wait =
        new XYChartBuilder()
            .width(900)
            .height(450)
            .title("p95 wait before the call, by submission time")
            .xAxisTitle("time (s)")
            .yAxisTitle("wait p95 (s)")
            .build();
    XYChart cap =
        new XYChartBuilder()
            .width(900)
            .height(450)
            .title("token cap used, per bin")
            .xAxisTitle("time (s)")
            .yAxisTitle("share of the token cap")
            .build();
    boolean anyCap = false;
    for (Result r : results) {
      for (Map.Entry<String, double[]> e : r.waitP95ByClass().entrySet()) {
        List<Double> xs = new ArrayList<>();
        List<Double> ys = new ArrayList<>();
        for (int b = 0; b < e.getValue().length; b++) {
          if (!Double.isNaN(e.getValue()[b])) {
            xs.add((b + 0.5) * r.binS());
            ys.add(e.getValue()[b] / 1000);
          }
        }
        if (!xs.isEmpty()) {
          wait.addSeries(r.policy() + " " + e.getKey(), xs, ys).setMarker(SeriesMarkers.NONE);
        }
      }
      if (r.tokenCapUsed().length > 0) {
        anyCap = true;
        double[] xs = new double[r.tokenCapUsed().length];
        for (int b = 0; b < xs.length; b++) {
          xs[b] = (b + 0.5) * r.binS();
        }
        cap.addSeries(r.policy(), xs, r.tokenCapUsed()).setMarker(SeriesMarkers.NONE);
      }
    }
    BitmapEncoder.saveBitmap(
        wait, dir.resolve(WAIT_FILE).toString(), BitmapEncoder.BitmapFormat.PNG);
    if (anyCap) {
      BitmapEncoder.saveBitmap(
          cap, dir.resolve(CAP_FILE).toString(), BitmapEncoder.BitmapFormat.PNG);
    }
  }
}
