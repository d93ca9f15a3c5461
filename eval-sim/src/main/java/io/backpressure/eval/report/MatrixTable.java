package io.backpressure.eval.report;

import io.backpressure.eval.measure.Stats;
import io.backpressure.eval.workload.Workload;
import java.util.List;

/**
 * The compact cross-workload table written as {@code matrix.md} when {@code --workload all} runs:
 * one row per workload and configuration with the key metrics.
 */
public final class MatrixTable {
  private MatrixTable() {}

  public static String render(List<Summary> summaries, List<Workload> workloads, String command) {
    StringBuilder md =
        new StringBuilder(
            "# Evaluation matrix\n\n`"
                + command
                + "`\n\n"
                + "Means over the repeats (95 % half-widths in each workload's report.md). OK req/s by class is"
                + " P1/P2/P3 (classes in workload order); p95 is the highest class's call latency.\n\n"
                + "| workload | config | 429 share | OK req/s | OK req/s by class | achievement Jain | order held"
                + " | p95 top class (ms) | slot ms / OK | deferrals / OK |\n"
                + "|---|---|---|---|---|---|---|---|---|---|\n");
    for (int i = 0; i < summaries.size(); i++) {
      Summary s = summaries.get(i);
      Workload w = workloads.get(i);
      String top =
          w.priorities().stream()
              .map(Workload.PriorityWeight::name)
              .filter(k -> w.tenants().stream().anyMatch(t -> t.priority().equals(k)))
              .findFirst()
              .orElseThrow();
      for (var e : s.configs().entrySet()) {
        Summary.ConfigResult r = e.getValue();
        StringBuilder classes = new StringBuilder();
        for (Workload.PriorityWeight k : w.priorities()) {
          Stats.Estimate est = r.keyed("ok_rps_by_priority", k.name());
          if (est != null) {
            classes
                .append(classes.length() == 0 ? "" : "/")
                .append(mean("ok_rps_by_priority", est));
          }
        }
        md.append("| ")
            .append(s.workload())
            .append(" | ")
            .append(e.getKey())
            .append(" | ")
            .append(mean("http_429_share", r.scalar("http_429_share")))
            .append(" | ")
            .append(mean("ok_rps_total", r.scalar("ok_rps_total")))
            .append(" | ")
            .append(classes)
            .append(" | ")
            .append(mean("achievement_jain", r.scalar("achievement_jain")))
            .append(" | ")
            .append(Format.estimate("priority_order_held", r.scalar("priority_order_held")))
            .append(" | ")
            .append(mean("p95_latency_ms_by_priority", r.keyed("p95_latency_ms_by_priority", top)))
            .append(" | ")
            .append(mean("slot_ms_per_ok", r.scalar("slot_ms_per_ok")))
            .append(" | ")
            .append(mean("deferrals_per_ok", r.scalar("deferrals_per_ok")))
            .append(" |\n");
      }
    }
    return md.toString();
  }

  private static String mean(String metric, Stats.Estimate e) {
    return e == null || !Double.isFinite(e.mean()) ? "–" : Format.value(metric, e.mean());
  }
}
