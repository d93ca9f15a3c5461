package io.backpressure.eval.report;

import io.backpressure.eval.measure.Stats;
import java.util.Locale;

/** How the report tables print a metric's estimate: unit and precision by metric name. */
public final class Format {
  private Format() {}

  /** {@code mean ± ci95} in the metric's unit, or "–" when undefined. */
  static String estimate(String metric, Stats.Estimate e) {
    if (e == null || !Double.isFinite(e.mean())) {
      return "–";
    }
    if (metric.equals("priority_order_held")) {
      return Math.round(e.mean() * e.n()) + "/" + e.n();
    }
    String mean = value(metric, e.mean());
    if (!Double.isFinite(e.ci95())) {
      return mean;
    }
    return mean + " ± " + value(metric, e.ci95()).replace(" %", "");
  }

  /** A number as typed on a command line: no trailing zeros. */
  public static String number(double v) {
    return v == Math.rint(v) && Math.abs(v) < 1e15 ? Long.toString((long) v) : Double.toString(v);
  }

  /** One value in the metric's unit. */
  static String value(String metric, double v) {
    String base = metric.contains(".") ? metric.substring(0, metric.indexOf('.')) : metric;
    return switch (base) {
      case "http_429_share", "cap_utilization", "expired_share" ->
          String.format(Locale.ROOT, "%.1f %%", 100 * v);
      case "achievement_jain" -> String.format(Locale.ROOT, "%.3f", v);
      case "p95_latency_ms_by_priority",
          "http_p95_latency_ms_by_priority",
          "slot_ms_per_ok",
          "upstream_max_per_window",
          "upstream_window_bound",
          "calls_failed",
          "calls_rejected_by_reason" ->
          String.format(Locale.ROOT, "%.0f", v);
      case "deferrals_per_ok",
          "deferred_calls_per_ok",
          "ok_deferrals_per_ok",
          "gate_latency_ms",
          "slot_occupancy" ->
          String.format(Locale.ROOT, "%.2f", v);
      case "cpu_utilization" -> String.format(Locale.ROOT, "%.0f %%", 100 * v);
      default -> String.format(Locale.ROOT, "%.1f", v);
    };
  }
}
