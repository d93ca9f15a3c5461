package io.backpressure.eval;

import io.backpressure.core.spi.Redaction;
import io.backpressure.eval.real.RealOptions;
import io.backpressure.eval.real.RealRunner;
import io.backpressure.eval.real.RedisLocation;
import io.backpressure.eval.real.TemporalStack;
import io.backpressure.eval.report.Format;
import io.backpressure.eval.report.MatrixTable;
import io.backpressure.eval.report.Plots;
import io.backpressure.eval.report.ReportMarkdown;
import io.backpressure.eval.report.Summary;
import io.backpressure.eval.report.SummaryJson;
import io.backpressure.eval.sim.Configuration;
import io.backpressure.eval.sim.GateConfiguration;
import io.backpressure.eval.sim.Runner;
import io.backpressure.eval.sim.SimRunner;
import io.backpressure.eval.workload.Fault;
import io.backpressure.eval.workload.Workload;
import io.backpressure.eval.workload.Workloads;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code ./backpressure eval}: runs workloads against configurations and writes {@code
 * summary.json}, {@code report.md} and PNG plots per workload (eval/README.md).
 *
 * <p>Exit codes: 0 on success, 2 on bad input (unknown workload, configuration or mode; malformed
 * workload file; out-of-range option), 1 when the outputs cannot be written.
 */
@Command(
    name = "eval",
    mixinStandardHelpOptions = true,
    description =
        "Run workloads against configurations (naive, tn, gateway, bp, ablations) and write"
            + " summary.json, report.md and plots.")
public final class EvalCommand implements Callable<Integer> {
  private static final String ALL = "all";

  @Spec CommandSpec spec;

  @Option(
      names = "--workload",
      required = true,
      paramLabel = "NAME|FILE",
      description =
          "A shipped workload (uncongested, overload, cross-priority, request-bound, token-bound,"
              + " mixed-dominant, noisy-estimates, reservation, reservation-capped), a workload YAML file, or"
              + " 'all' for the nine shipped ones.")
  String workload;

  @Option(
      names = "--configs",
      paramLabel = "LIST",
      defaultValue = "naive,tn,gateway,bp,bp-no-drf,bp-no-priority",
      description = "Comma-separated configurations (default: ${DEFAULT-VALUE}).")
  String configs;

  @Option(
      names = "--mode",
      defaultValue = "sim",
      paramLabel = "MODE",
      description =
          "sim (deterministic discrete-event simulation in virtual time) or real (Temporal, workers,"
              + " the mock provider over HTTP, wall clock). Default: ${DEFAULT-VALUE}.")
  String mode;

  @Option(
      names = "--scale",
      paramLabel = "F",
      description =
          "Divide caps, open-loop rates, slots and workflows by F (same shape, F times fewer calls/s)."
              + " Default: 1 in sim; in real mode the smallest F that brings the request cap to at most "
              + RealOptions.AUTO_SCALE_RPS
              + " req/s.")
  Double scale;

  @Option(
      names = "--time-scale",
      paramLabel = "F",
      description =
          "Stretch the workload's time by F instead: the provider's period, latencies, deadlines,"
              + " start and stop times and trace arrivals x F, caps and rates / F; call sizes, slots"
              + " and workflows unchanged, so every ratio of the workload is kept and a run lasts F"
              + " times longer. Exclusive with --scale. In real mode without either, the automatic F"
              + " is applied this way when dividing would make a call larger than the scaled token"
              + " cap per period.")
  Double timeScale;

  @Option(
      names = "--temporal",
      paramLabel = "HOST:PORT",
      description =
          "Real mode: an external Temporal service (default: the Java test server in this process).")
  String temporal;

  @Option(
      names = "--temporal-tls",
      description =
          "Real mode: connect to --temporal over TLS (the JVM's trusted certificates). An API key (Temporal"
              + " Cloud) is read from the environment variable "
              + TemporalStack.API_KEY_ENV
              + ", never from the command line.")
  boolean temporalTls;

  @Option(
      names = "--namespace",
      defaultValue = "default",
      paramLabel = "NS",
      description =
          "Real mode: the Temporal namespace with --temporal (default: ${DEFAULT-VALUE}).")
  String namespace;

  @Option(
      names = "--redis",
      paramLabel = "URL",
      description =
          "Real mode: keep the gate's state in Redis (redis://host:port) instead of memory; 'auto' starts"
              + " and owns a redis-server from PATH on a free loopback port (needed for the Redis faults).")
  String redis;

  @Option(
      names = "--redis-cluster",
      paramLabel = "HOST:PORT",
      split = ",",
      description =
          "Real mode: keep the gate's state on a Redis Cluster reached from these seed nodes.")
  List<String> redisCluster;

  @Option(
      names = "--fault",
      paramLabel = "KIND@T[+D]",
      description =
          "Real mode, repeatable: inject a fault T s into every run, for D s: redis-stop, redis-kill"
              + " (restarted empty after D), redis-flush (at T), worker-kill (a replacement after D), provider-errors"
              + " (500s), provider-slow (latency x10); the Redis faults need --redis auto.")
  List<String> faults = new ArrayList<>();

  @Option(
      names = "--when-unavailable",
      defaultValue = "open",
      paramLabel = "MODE",
      description =
          "Real mode with --redis: what the Redis gate does while Redis does not answer: open (admit"
              + " ungated, the default), closed (defer) or local (an in-memory gate with this worker's share of the caps).")
  String whenUnavailable;

  @Option(
      names = "--send-margin-ms",
      defaultValue = "0",
      paramLabel = "MS",
      description =
          "Real mode, gated configurations: widen the safe window by MS and lower the caps to match,"
              + " so no provider window sees more than the cap while send delays vary by up to MS"
              + " (0 to 1000, default 0).")
  long sendMarginMs;

  @Option(
      names = "--workers",
      defaultValue = "1",
      paramLabel = "N",
      description =
          "Real mode: worker processes sharing the gate's state (N > 1 needs --redis). Default: 1.")
  int workers;

  @Option(
      names = "--metrics-port",
      paramLabel = "PORT",
      description =
          "Real mode: serve the gates' Prometheus metrics on 127.0.0.1:PORT/metrics during the runs.")
  Integer metricsPort;

  @Option(
      names = "--repeats",
      defaultValue = "5",
      paramLabel = "N",
      description =
          "Runs per configuration, each with a different seed (default: ${DEFAULT-VALUE}).")
  int repeats;

  @Option(
      names = "--seed",
      defaultValue = "1",
      paramLabel = "SEED",
      description =
          "Base seed; the same seed gives the same summary.json (default: ${DEFAULT-VALUE}).")
  long seed;

  @Option(
      names = "--out",
      paramLabel = "DIR",
      description =
          "Output folder (default: eval-out/<workload>; with 'all': DIR/<workload>, DIR default eval-out).")
  Path out;

  @Option(
      names = "--duration-s",
      paramLabel = "SECONDS",
      description =
          "Override every workload's duration_s (e.g. short CI runs); must exceed warmup_s.")
  Double durationS;

  @Option(
      names = "--verbose",
      description =
          "Print the libraries' logs (Temporal, gRPC, Lettuce) here instead of into a file in the"
              + " output folder.")
  boolean verbose;

  @Option(
      names = "--threads",
      paramLabel = "N",
      description = "Runs in parallel (default: the number of processors).")
  Integer threads;

  /** Picocli's constructor. */
  public EvalCommand() {}

  /** Runs the command in a process of its own (tests start it this way). */
  public static void main(String[] args) {
    System.exit(new picocli.CommandLine(new EvalCommand()).execute(args));
  }

  @Override
  public Integer call() {
    PrintWriter err = spec.commandLine().getErr();
    PrintWriter outWriter = spec.commandLine().getOut();
    List<Workload> workloads;
    List<Configuration> configurations;
    Runner runner;
    LibraryLogs logs;
    int threadCount;
    boolean real;
    try {
      Runner modeRunner = runnerFor(mode);
      real = modeRunner instanceof RealRunner;
      if (redis != null && redisCluster != null) {
        throw new IllegalArgumentException(
            "--redis and --redis-cluster exclude each other: give one");
      }
      if (redisCluster != null) {
        try {
          RedisLocation.builder(RedisLocation.cluster(redisCluster)).target("check").build();
        } catch (IllegalArgumentException e) {
          throw new IllegalArgumentException("--redis-cluster: " + e.getMessage(), e);
        }
        redis = RedisLocation.cluster(redisCluster);
      }
      if (!real) {
        RealOptions.refuseFaultsInSim(faults.size());
      }
      RealOptions options =
          new RealOptions(
              temporal,
              namespace,
              redis,
              workers,
              metricsPort,
              temporalTls,
              faults.stream().map(Fault::parse).toList(),
              failOpenMode(whenUnavailable),
              sendMarginMs);
      if (!real) {
        options.requireSimDefaults();
      }
      configurations = Configuration.parseList(configs);
      if (repeats < 1 || repeats > 1000) {
        throw new IllegalArgumentException("--repeats must be in [1, 1000], got " + repeats);
      }
      threadCount =
          real ? 1 : threads == null ? Runtime.getRuntime().availableProcessors() : threads;
      if (threadCount < 1 || threadCount > 256) {
        throw new IllegalArgumentException("--threads must be in [1, 256], got " + threadCount);
      }
      workloads = new ArrayList<>();
      if (scale != null && timeScale != null) {
        throw new IllegalArgumentException(
            "--scale and --time-scale exclude each other: divide the caps or stretch time");
      }
      for (String name : workload.equals(ALL) ? Workloads.SHIPPED : List.of(workload)) {
        Workload w = Workloads.load(name);
        w = durationS == null ? w : w.withDuration(durationS);
        workloads.add(fitted(w, real));
      }
      for (Workload w : workloads) {
        for (Configuration c : configurations) {
          c.validate(w);
          if (real && c instanceof GateConfiguration gate && gate.simulatedOnly()) {
            throw new IllegalArgumentException(
                c.name() + " is an ablation of the simulator only: run it with --mode sim");
          }
        }
      }
      logs = verbose ? LibraryLogs.verbose() : LibraryLogs.toFolder(outputRoot(workloads));
      runner = real ? options.runner(logs.workersFile()) : modeRunner;
    } catch (IllegalArgumentException | UncheckedIOException e) {
      err.println("eval: " + e.getMessage());
      err.flush();
      return 2;
    }

    int runs = workloads.size() * configurations.size() * repeats;
    ProgressBar progress = new ProgressBar(System.err, runs, Terminal.attached());
    long started = System.nanoTime();
    List<Summary> summaries;
    try (runner) {
      if (real) {
        for (Workload w : workloads) {
          outWriter.println(RealOptions.plan(w, configurations.size() * repeats));
        }
        outWriter.flush();
      }
      summaries =
          Evaluation.run(runner, workloads, configurations, repeats, seed, threadCount, progress);
      if (runner instanceof RealRunner realRunner) {
        realRunner.injected().forEach(step -> outWriter.println("fault " + step));
      }
    } catch (IllegalArgumentException | IllegalStateException e) {
      err.println("eval: " + e.getMessage());
      printLogSummary(err, logs);
      return 1;
    }
    double seconds = (System.nanoTime() - started) / 1e9;
    try {
      boolean all = workload.equals(ALL);
      Path root = out != null ? out : Path.of("eval-out");
      for (int i = 0; i < summaries.size(); i++) {
        Workload w = workloads.get(i);
        Path dir = all || out == null ? root.resolve(w.name()) : out;
        write(summaries.get(i), w, dir, command(w.name(), configurations));
        outWriter.println("wrote " + dir.resolve("summary.json") + ", report.md and plots");
      }
      if (all) {
        Files.writeString(
            root.resolve("matrix.md"),
            MatrixTable.render(summaries, workloads, command(ALL, configurations)),
            StandardCharsets.UTF_8);
        outWriter.println("wrote " + root.resolve("matrix.md"));
      }
    } catch (IOException | UncheckedIOException e) {
      err.println("eval: cannot write outputs: " + e.getMessage());
      err.flush();
      return 1;
    }
    outWriter.println(
        String.format(
            Locale.ROOT,
            "%d runs (%d workloads x %d configurations x %d repeats) %s"
                + " in %.1f s wall time on %d threads",
            runs,
            workloads.size(),
            configurations.size(),
            repeats,
            real ? "run on the real stack" : "simulated",
            seconds,
            threadCount));
    printLogSummary(outWriter, logs);
    return 0;
  }

  /**
   * {@code w} as this run takes it: stretched by {@code --time-scale}, divided by {@code --scale},
   * or in real mode by the automatic factor, divided when every call still fits the scaled token
   * cap per period and stretched otherwise.
   */
  private Workload fitted(Workload w, boolean real) {
    if (timeScale != null) {
      return w.stretched(timeScale);
    }
    if (scale != null) {
      return w.scaled(scale);
    }
    if (!real) {
      return w;
    }
    double auto = RealOptions.autoScale(w);
    return w.callsFitScaledBy(auto) ? w.scaled(auto) : w.stretched(auto);
  }

  /** The folder the outputs (and the library log) of {@code workloads} go to. */
  private Path outputRoot(List<Workload> workloads) {
    Path root = out != null ? out : Path.of("eval-out");
    return workload.equals(ALL) || out != null ? root : root.resolve(workloads.get(0).name());
  }

  private static void printLogSummary(PrintWriter writer, LibraryLogs logs) {
    String summary = logs.summary();
    if (summary != null) {
      writer.println(summary);
    }
    writer.flush();
  }

  /**
   * {@code url} with any user and password replaced by {@code ***}, for the recorded command,
   * whatever characters the password holds ({@link Redaction#url}).
   */
  static String redacted(String url) {
    return Redaction.url(url);
  }

  static void write(Summary summary, Workload workload, Path dir, String command)
      throws IOException {
    Files.createDirectories(dir);
    Files.writeString(
        dir.resolve("summary.json"), SummaryJson.render(summary), StandardCharsets.UTF_8);
    Files.writeString(
        dir.resolve("report.md"),
        ReportMarkdown.render(summary, workload, command),
        StandardCharsets.UTF_8);
    Plots.write(summary, workload, dir);
  }

  private String command(String workloadName, List<Configuration> configurations) {
    StringBuilder c =
        new StringBuilder("./backpressure eval --workload ")
            .append(workloadName)
            .append(" --configs ")
            .append(String.join(",", configurations.stream().map(Configuration::name).toList()))
            .append(" --mode ")
            .append(mode)
            .append(" --repeats ")
            .append(repeats)
            .append(" --seed ")
            .append(seed);
    if (durationS != null) {
      c.append(" --duration-s ").append(Format.number(durationS));
    }
    if (scale != null) {
      c.append(" --scale ").append(Format.number(scale));
    }
    if (timeScale != null) {
      c.append(" --time-scale ").append(Format.number(timeScale));
    }
    if (redis != null) {
      c.append(' ')
          .append(
              RedisLocation.options(
                  RedisLocation.withMode(redacted(redis), failOpenMode(whenUnavailable))));
    }
    if (workers != 1) {
      c.append(" --workers ").append(workers);
    }
    faults.forEach(f -> c.append(" --fault ").append(f));
    if (sendMarginMs != 0) {
      c.append(" --send-margin-ms ").append(sendMarginMs);
    }
    if (temporal != null) {
      c.append(" --temporal ").append(temporal).append(" --namespace ").append(namespace);
      if (temporalTls) {
        c.append(" --temporal-tls");
      }
    }
    return c.toString();
  }

  /** {@code --when-unavailable}: open, closed or local. */
  private static io.backpressure.core.FailOpenGate.Mode failOpenMode(String text) {
    return switch (text == null ? "" : text) {
      case "open" -> io.backpressure.core.FailOpenGate.Mode.OPEN;
      case "closed" -> io.backpressure.core.FailOpenGate.Mode.CLOSED;
      case "local" -> io.backpressure.core.FailOpenGate.Mode.LOCAL;
      default ->
          throw new IllegalArgumentException(
              "--when-unavailable must be one of open, closed, local, got '" + text + "'");
    };
  }

  /** The modes accepted by {@code --mode}. */
  private static final List<String> MODES = List.of("sim", "real");

  /**
   * The runner for {@code mode}.
   *
   * @throws IllegalArgumentException listing the allowed modes
   */
  private static Runner runnerFor(String mode) {
    String m = mode == null ? "" : mode.strip().toLowerCase(Locale.ROOT);
    if (m.equals("sim")) {
      return new SimRunner();
    }
    if (m.equals("real")) {
      return new RealOptions(null, "default", null, 1, null).runner();
    }
    throw new IllegalArgumentException(
        "unknown --mode '" + mode + "'; allowed: " + String.join(", ", MODES));
  }
}
