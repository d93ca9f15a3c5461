package io.backpressure.eval.report;

import io.backpressure.core.Policy;
import io.backpressure.eval.measure.Stats;
import io.backpressure.eval.sim.GateConfiguration;
import io.backpressure.eval.sim.TimeModel;
import io.backpressure.eval.workload.Workload;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Renders {@code report.md}: the key metrics side by side per configuration with the paper's
 * figures in a last column, the per-queue observed and ideal rates, the plots, and the notes a
 * reader needs to interpret them. Deterministic: it holds no wall-clock quantity.
 */
public final class ReportMarkdown {
  private ReportMarkdown() {}

  public static String render(Summary summary, Workload workload, String command) {
    StringBuilder md = new StringBuilder();
    List<String> configs = new ArrayList<>(summary.configs().keySet());
    md.append("# ")
        .append(workload.name())
        .append(" — ")
        .append(summary.mode())
        .append(" evaluation\n\n");
    md.append(workload.description().strip()).append("\n\n");
    md.append(
        String.format(
            Locale.ROOT,
            "- %d repeats per configuration (seeds derived from %d; repeat i uses the"
                + " same seed in every configuration), %.0f s runs, contention window from %.0f s until the first queue"
                + " finishes all its calls.%n",
            summary.repeats(),
            summary.seed(),
            summary.durationS(),
            workload.warmupS()));
    md.append("- Command: `").append(command).append("`\n");
    if (!summary.faults().isEmpty()) {
      md.append("- Faults injected into every run: ")
          .append(String.join(", ", summary.faults()))
          .append(
              " (times after the run's origin); `calls_failed`, `failed_open_admissions`, `workers_lost` and"
                  + " `upstream_max_per_window` show what they did.\n");
    }
    md.append(
        "- Cells are the mean ± the 95 % Student-t half-width over the repeats; `–` is undefined.\n\n");

    md.append("## Key metrics\n\n");
    md.append("| metric |");
    configs.forEach(c -> md.append(' ').append(c).append(" |"));
    md.append(" paper |\n|---|");
    configs.forEach(c -> md.append("---|"));
    md.append("---|\n");
    for (String[] row : keyRows(summary, workload)) {
      String metric = row[0];
      String key = row[1];
      String label = key == null ? metric : metric + "." + key;
      md.append("| ").append(label).append(" |");
      for (String c : configs) {
        Summary.ConfigResult r = summary.configs().get(c);
        Stats.Estimate e = key == null ? r.scalar(metric) : r.keyed(metric, key);
        md.append(' ').append(Format.estimate(label, e)).append(" |");
      }
      md.append(' ').append(PaperFigures.of(workload.name(), label)).append(" |\n");
    }

    md.append(
        "\n## Per queue: OK req/s observed / DRF ideal (contention window)\n\n| queue (class) |");
    configs.forEach(c -> md.append(' ').append(c).append(" |"));
    md.append("\n|---|");
    configs.forEach(c -> md.append("---|"));
    md.append('\n');
    for (Workload.Tenant t : workload.tenants()) {
      md.append("| ").append(t.name()).append(" (").append(t.priority()).append(") |");
      for (String c : configs) {
        Summary.ConfigResult r = summary.configs().get(c);
        Stats.Estimate ok = r.keyed("ok_rps_by_queue", t.name());
        Stats.Estimate ideal = r.keyed("ideal_rps_by_queue", t.name());
        md.append(' ')
            .append(Format.estimate("ok_rps_by_queue", ok))
            .append(" / ")
            .append(ideal == null ? "–" : Format.value("ideal_rps_by_queue", ideal.mean()))
            .append(" |");
      }
      md.append('\n');
    }

    md.append("\n## Plots\n\n![OK req/s per class](").append(Plots.THROUGHPUT_FILE).append(")\n\n");
    for (String c : configs) {
      md.append("![")
          .append(c)
          .append(" service heatmap](")
          .append(Plots.heatmapFile(c))
          .append(")\n\n");
    }
    for (String dim : Plots.capPlots(workload)) {
      md.append("![")
          .append(dim)
          .append(" cap in use over time](")
          .append(Plots.capFile(dim))
          .append(")\n\n");
    }

    md.append("## How to read this\n\n");
    md.append(
        "- `gate_latency_ms` is a wall-clock quantity: it is not produced in sim mode (the gate's decisions"
            + " take no virtual time). It is measured in real mode and by the benchmarks.\n");
    md.append(
        "- `p95_latency_ms_by_priority` is call latency, from submission to the successful answer with"
            + " every wait included; the paper's P1 p95 is HTTP latency, so the two are not the same quantity.\n");
    md.append(
        "- `slot_ms_per_ok`, `deferrals_per_ok`, `deferred_calls_per_ok` (calls deferred at least once"
            + " per successful call: the floor of `deferrals_per_ok` for a gate that defers instead of"
            + " refusing) and `ok_deferrals_per_ok` (the successful calls' own deferrals per successful"
            + " call) cover the whole run; `http_429_share` too. The rates,"
            + " `cap_utilization`, `p95_*` and the set of active queues cover the contention window.\n");
    md.append(
        "- A call is expired when the gate refused it for its deadline or its caller gave up at the"
            + " deadline (`expired_share`, of all calls submitted); `goodput_*` counts the successful calls answered"
            + " within their deadline; `calls_failed` counts calls that ended in another error;"
            + " `http_p95_latency_ms_by_priority` runs from a call's first upstream attempt to its answer (the"
            + " paper's HTTP p95); `cap_utilization` is against the true caps less outside traffic.\n");
    md.append(
        "- `priority_order_held` shows in how many repeats the per-class OK rate strictly fell from the"
            + " highest class down.\n");
    md.append(
            "- The paper column quotes the paper (its `litellm` is our `gateway`); its testbed was real"
                + " (Temporal, Valkey, network), ours here is ")
        .append(
            "real".equals(summary.mode())
                ? "the real stack on loopback (see eval/README.md, \"Real mode\").\n"
                : "the simulator.\n");
    if (!"real".equals(summary.mode())) {
      md.append(
          "- `upstream_max_per_window`: the most requests (or counted tokens) of the workload's own calls"
              + " that reached the provider within any sliding window of one upstream period, 200s, 429s and 500s"
              + " alike.\n");
    }
    if ("real".equals(summary.mode())) {
      md.append(
          "- `upstream_max_per_window` is read from the mock provider's own records: the most requests"
              + " (or charged tokens) that reached it within any sliding window of one upstream period, 200s and"
              + " 429s alike (in `bp*` every one was admitted by the gate); `upstream_window_bound` is cap × period"
              + " + the gate's burst, the most the gate can admit in one period.\n");
    }
    md.append(
        String.format(
            Locale.ROOT,
            "- %s: a 200 returns after U(%.0f, %.0f) ms, a 429 at once; every"
                + " activity dispatch costs %d ms; a durable timer fires %d–%d ms late; the SDK retry of naive, tn and"
                + " gateway sleeps max(retry-after, U(0, min(8 s, 0.5 s·2^(n−1)))) on the slot.%n",
            "real".equals(summary.mode())
                ? "The simulator's time model, which the measured rows above (timer excess, dispatch, 429 round"
                    + " trip) check"
                : "Time model",
            workload.upstream().latencyMinMs(),
            workload.upstream().latencyMaxMs(),
            TimeModel.DISPATCH_NANOS / 1_000_000,
            TimeModel.TIMER_LATE_MIN_NANOS / 1_000_000,
            TimeModel.TIMER_LATE_MAX_NANOS / 1_000_000));
    if (workload.followsCalendar()) {
      md.append("- The run starts at ")
          .append(workload.startAt())
          .append(
              " (`start_at`); `calls_rejected_by_reason` counts the calls the gate refused until a"
                  + " calendar window or a quota resets (`LIMIT_REACHED`, `QUOTA_EXHAUSTED`; part of"
                  + " `calls_failed`), and `limit_reset_s` is the earliest reset instant they were"
                  + " given, in seconds after the start.\n");
    }
    md.append("- bp policy for this workload: ").append(policyNote(workload)).append('\n');
    return md.toString();
  }

  /**
   * The rows of the key-metric table: {metric, key or null}, every metric and key any configuration
   * has (real mode adds the gate's latency to gated configurations only), in first-seen order.
   */
  static List<String[]> keyRows(Summary summary, Workload workload) {
    Map<String, Set<String>> keys = new LinkedHashMap<>();
    for (Summary.ConfigResult r : summary.configs().values()) {
      for (Map.Entry<String, Summary.Aggregate> m : r.metrics().entrySet()) {
        String metric = m.getKey();
        if (metric.equals("ok_rps_by_queue") || metric.equals("ideal_rps_by_queue")) {
          continue;
        }
        Set<String> set = keys.computeIfAbsent(metric, k -> new LinkedHashSet<>());
        if (m.getValue() instanceof Summary.ByKey keyed) {
          set.addAll(keyed.estimates().keySet());
        }
      }
    }
    List<String[]> rows = new ArrayList<>();
    keys.forEach(
        (metric, set) -> {
          if (set.isEmpty()) {
            rows.add(new String[] {metric, null});
          } else {
            set.forEach(k -> rows.add(new String[] {metric, k}));
          }
        });
    return rows;
  }

  private static String policyNote(Workload workload) {
    Policy policy;
    try {
      policy = GateConfiguration.policy(workload, GateConfiguration.Variant.FULL);
    } catch (IllegalArgumentException e) {
      return "not applicable (" + e.getMessage() + ")";
    }
    StringBuilder note = new StringBuilder();
    for (int d = 0; d < policy.dimensions().size(); d++) {
      var dim = policy.dimensions().get(d);
      note.append(
          String.format(
              Locale.ROOT,
              "%s cap %.0f/s, burst %.0f, refill %.0f/s; ",
              dim.name(),
              dim.capPerSecond(),
              dim.burst(),
              dim.capPerSecond()));
    }
    note.append(
        String.format(
            Locale.ROOT,
            "burst = one upstream period (%.3f s) of cap, at least the largest"
                + " single-call debit; safe window = one upstream period; cost estimate = 1 request + prompt tokens%s; a 429 is released as"
                + " 1 request and %s tokens and retried through the gate. See eval/README.md for why.",
            workload.upstream().periodS(),
            policy.reservation()
                ? " + max_tokens (reservation mode, default " + policy.defaultMaxTokens() + ")"
                : "",
            workload.upstream().rejectedCount() ? "all its" : "0"));
    return note.toString();
  }
}
