package io.backpressure.eval;

import io.backpressure.eval.measure.Stats;
import io.backpressure.eval.real.RealOptions;
import io.backpressure.eval.real.RealRunner;
import io.backpressure.eval.report.Format;
import io.backpressure.eval.report.Plots;
import io.backpressure.eval.report.Summary;
import io.backpressure.eval.sim.Configuration;
import io.backpressure.eval.workload.Workload;
import io.backpressure.eval.workload.Workloads;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code ./backpressure demo}: the main job. Runs {@code cross-priority}, scaled down, for {@code
 * naive} and {@code bp} on the real stack with embedded defaults (the Temporal test server in this
 * process, the mock provider on loopback, the gate in memory), prints the two side by side and
 * writes the full report with its plots.
 *
 * <p>Exit codes: 0 on success, 2 on a bad option, 1 when a run or the outputs fail.
 */
@Command(
    name = "demo",
    mixinStandardHelpOptions = true,
    description =
        "Main job: naive vs bp on cross-priority on the real stack (Temporal test server, mock provider,"
            + " in-memory gate), a side-by-side table and a report with plots; about two minutes.")
public final class DemoCommand implements Callable<Integer> {
  static final String WORKLOAD = "cross-priority";
  static final List<String> CONFIGS = List.of("naive", "bp");

  @Spec CommandSpec spec;

  @Option(
      names = "--duration-s",
      defaultValue = "40",
      paramLabel = "SECONDS",
      description = "Length of each run, warm-up (5 s) included (default: ${DEFAULT-VALUE}).")
  double durationS;

  @Option(
      names = "--scale",
      defaultValue = "4",
      paramLabel = "F",
      description =
          "Divide caps, slots and workflows by F (default: ${DEFAULT-VALUE}: 15 req/s, 4 slots,"
              + " 14 workflows).")
  double scale;

  @Option(
      names = "--seed",
      defaultValue = "1",
      paramLabel = "SEED",
      description = "Seed (default: ${DEFAULT-VALUE}).")
  long seed;

  @Option(
      names = "--out",
      defaultValue = "eval-out/demo",
      paramLabel = "DIR",
      description = "Where the report and plots go (default: ${DEFAULT-VALUE}).")
  Path out;

  @Option(
      names = "--verbose",
      description =
          "Print the libraries' logs (Temporal, gRPC) here instead of into a file in the output folder.")
  boolean verbose;

  /** Picocli's constructor. */
  public DemoCommand() {}

  @Override
  public Integer call() {
    PrintWriter err = spec.commandLine().getErr();
    PrintWriter o = spec.commandLine().getOut();
    Workload workload;
    List<Configuration> configurations;
    LibraryLogs logs;
    try {
      workload = Workloads.load(WORKLOAD).scaled(scale).withDuration(durationS);
      configurations = Configuration.parseList(String.join(",", CONFIGS));
      logs = verbose ? LibraryLogs.verbose() : LibraryLogs.toFolder(out);
    } catch (IllegalArgumentException | UncheckedIOException e) {
      err.println("demo: " + e.getMessage());
      err.flush();
      return 2;
    }
    o.println(RealOptions.plan(workload, configurations.size()));
    o.println(
        "naive = SDK retry on the worker slot; bp = openai-java behind the admission gate, deferrals on durable timers.");
    o.flush();
    long started = System.nanoTime();
    Summary summary;
    String stack;
    try (RealRunner runner =
        new RealOptions(null, "default", null, 1, null).runner(logs.workersFile())) {
      stack = runner.describe();
      ProgressBar progress =
          new ProgressBar(System.err, configurations.size(), Terminal.attached());
      summary =
          Evaluation.run(runner, List.of(workload), configurations, 1, seed, 1, progress).get(0);
    } catch (RuntimeException e) {
      err.println("demo: the run failed: " + e);
      if (logs.summary() != null) {
        err.println(logs.summary());
      }
      err.flush();
      return 1;
    }
    double seconds = (System.nanoTime() - started) / 1e9;
    try {
      EvalCommand.write(summary, workload, out, command());
    } catch (IOException | UncheckedIOException e) {
      err.println("demo: cannot write outputs: " + e.getMessage());
      err.flush();
      return 1;
    }
    o.println();
    o.print(table(summary));
    o.println();
    o.println(String.format(Locale.ROOT, "%s; %.0f s wall time.", stack, seconds));
    o.println("Report: " + out.resolve("report.md").toAbsolutePath().normalize());
    o.println(
        "Plots:  "
            + out.resolve(Plots.THROUGHPUT_FILE).toAbsolutePath().normalize()
            + ", "
            + String.join(
                ", ",
                CONFIGS.stream()
                    .map(
                        c ->
                            out.resolve(Plots.heatmapFile(c))
                                .toAbsolutePath()
                                .normalize()
                                .toString())
                    .toList()));
    if (logs.summary() != null) {
      o.println(logs.summary());
    }
    o.flush();
    return 0;
  }

  /** The side-by-side table the demo prints. */
  static String table(Summary summary) {
    StringBuilder t = new StringBuilder();
    String row = "%-26s %14s %14s%n";
    t.append(String.format(Locale.ROOT, row, "", "naive", "bp"));
    t.append(line(summary, row, "OK req/s P1", "ok_rps_by_priority", "P1", "%.1f", 1));
    t.append(line(summary, row, "OK req/s P2", "ok_rps_by_priority", "P2", "%.1f", 1));
    t.append(line(summary, row, "OK req/s P3", "ok_rps_by_priority", "P3", "%.1f", 1));
    t.append(
        line(
            summary,
            row,
            "P1 p95 call latency (ms)",
            "p95_latency_ms_by_priority",
            "P1",
            "%.0f",
            1));
    t.append(line(summary, row, "429 share", "http_429_share", null, "%.1f %%", 100));
    t.append(line(summary, row, "achievement Jain", "achievement_jain", null, "%.3f", 1));
    t.append(line(summary, row, "slot ms per OK call", "slot_ms_per_ok", null, "%.0f", 1));
    String[] held = new String[2];
    for (int i = 0; i < 2; i++) {
      Stats.Estimate e = summary.configs().get(CONFIGS.get(i)).scalar("priority_order_held");
      held[i] = e == null || !Double.isFinite(e.mean()) ? "–" : e.mean() == 1 ? "yes" : "no";
    }
    t.append(String.format(Locale.ROOT, row, "priority order held", held[0], held[1]));
    return t.toString();
  }

  private static String line(
      Summary summary,
      String row,
      String label,
      String metric,
      String key,
      String format,
      double factor) {
    String[] cells = new String[2];
    for (int i = 0; i < 2; i++) {
      Summary.ConfigResult r = summary.configs().get(CONFIGS.get(i));
      Stats.Estimate e = key == null ? r.scalar(metric) : r.keyed(metric, key);
      cells[i] =
          e == null || !Double.isFinite(e.mean())
              ? "–"
              : String.format(Locale.ROOT, format, e.mean() * factor);
    }
    return String.format(Locale.ROOT, row, label, cells[0], cells[1]);
  }

  private String command() {
    return String.format(
        Locale.ROOT,
        "./backpressure demo --duration-s %s --scale %s --seed %d",
        Format.number(durationS),
        Format.number(scale),
        seed);
  }
}
