package io.backpressure.eval;

import io.backpressure.core.InvalidPolicyException;
import io.backpressure.core.Policy;
import io.backpressure.eval.measure.Recording;
import io.backpressure.eval.report.WhatIf;
import io.backpressure.eval.sim.Configuration;
import io.backpressure.eval.sim.GateConfiguration;
import io.backpressure.eval.sim.SimRunner;
import io.backpressure.eval.workload.Workload;
import io.backpressure.eval.workload.Workloads;
import io.backpressure.policy.yaml.PolicyYaml;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code ./backpressure what-if}: replays a workload (usually a trace of recorded calls,
 * eval/README "what-if") in the simulator once per policy file and reports what each policy would
 * have done to each tenant and class: the wait before the call, the calls answered late or never,
 * the 429s the provider would have answered and the share of the caps used. Writes {@code
 * summary.json} and two plots to the output folder and prints the table.
 *
 * <p>Exit codes: 0 on success, 2 on bad input (a malformed workload, trace or policy file, a policy
 * without one of the workload's classes, an out-of-range option), 1 when the outputs cannot be
 * written.
 */
@Command(
    name = "what-if",
    mixinStandardHelpOptions = true,
    description =
        "Replay a trace workload against one or more policy files in the simulator and report, per"
            + " tenant and class, the wait before the call, late calls, 429s and cap used.")
public final class WhatIfCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Option(
      names = "--workload",
      required = true,
      paramLabel = "NAME|FILE",
      description =
          "The workload to replay: a YAML file whose tenants take their calls from a trace (or any"
              + " workload file), or a shipped workload such as azure-2023. Its upstream is the provider.")
  String workload;

  @Option(
      names = "--policy",
      required = true,
      paramLabel = "FILE",
      description =
          "A policy file (the YAML 'admin apply' takes), repeatable; each runs as a configuration"
              + " named by its file name.")
  List<Path> policies = new ArrayList<>();

  @Option(
      names = "--configs",
      paramLabel = "LIST",
      description =
          "Also run these configurations of 'eval' (e.g. naive,bp) for comparison; default: none.")
  String configs;

  @Option(
      names = "--deadline-s",
      paramLabel = "SECONDS",
      description =
          "Count a call late when it is not answered within this long of its submission (default:"
              + " each tenant's deadline_s; without one, when it is not answered by the end).")
  Double deadlineS;

  @Option(
      names = "--seed",
      defaultValue = "1",
      paramLabel = "SEED",
      description = "The simulation's seed (latencies, jitter); default ${DEFAULT-VALUE}.")
  long seed;

  @Option(
      names = "--out",
      paramLabel = "DIR",
      description = "Output folder (default: what-if-out/<workload>).")
  Path out;

  @Option(
      names = "--threads",
      paramLabel = "N",
      description = "Runs in parallel (default: the number of processors).")
  Integer threads;

  /** Picocli's constructor. */
  public WhatIfCommand() {}

  @Override
  public Integer call() {
    PrintWriter err = spec.commandLine().getErr();
    PrintWriter outWriter = spec.commandLine().getOut();
    Workload w;
    List<Configuration> runs = new ArrayList<>();
    int threadCount;
    try {
      w = Workloads.load(workload);
      Map<String, Policy> byName = new LinkedHashMap<>();
      for (Path file : policies) {
        String name = policyName(file);
        if (byName.containsKey(name)) {
          throw new IllegalArgumentException(
              "--policy: two files are named '" + name + "'; give each policy its own file name");
        }
        byName.put(name, readPolicy(file));
      }
      byName.forEach((name, policy) -> runs.add(GateConfiguration.withPolicy(name, policy)));
      if (configs != null) {
        for (Configuration c : Configuration.parseList(configs)) {
          if (byName.containsKey(c.name())) {
            throw new IllegalArgumentException(
                "--configs: '" + c.name() + "' is also the name of a --policy file");
          }
          runs.add(c);
        }
      }
      for (Configuration c : runs) {
        c.validate(w);
      }
      if (deadlineS != null && !(deadlineS > 0 && deadlineS <= 86_400)) {
        throw new IllegalArgumentException(
            "--deadline-s must be in (0, 86400] seconds, got " + deadlineS);
      }
      threadCount = threads == null ? Runtime.getRuntime().availableProcessors() : threads;
      if (threadCount < 1 || threadCount > 256) {
        throw new IllegalArgumentException("--threads must be in [1, 256], got " + threadCount);
      }
    } catch (IllegalArgumentException | UncheckedIOException e) {
      err.println("what-if: " + e.getMessage());
      err.flush();
      return 2;
    }

    ProgressBar progress = new ProgressBar(System.err, runs.size() * 100, Terminal.attached());
    long started = System.nanoTime();
    List<WhatIf.Result> results = simulate(w, runs, threadCount, progress);
    double wallS = (System.nanoTime() - started) / 1e9;

    String judged =
        deadlineS != null
            ? String.format(Locale.ROOT, "%s s", deadlineS)
            : "each tenant's deadline_s (else by the end of the run)";
    Path dir = out != null ? out : Path.of("what-if-out", w.name());
    try {
      Files.createDirectories(dir);
      Files.writeString(
          dir.resolve("summary.json"),
          WhatIf.json(w, deadlineS, seed, results),
          StandardCharsets.UTF_8);
      WhatIf.plot(results, dir);
    } catch (IOException | UncheckedIOException e) {
      err.println("what-if: cannot write outputs: " + e.getMessage());
      err.flush();
      return 1;
    }
    outWriter.print(WhatIf.table(results, judged));
    outWriter.println(
        String.format(
            Locale.ROOT,
            "%d runs of %.0f s simulated in %.1f s wall time on %d threads (%.0f simulated s per"
                + " wall s)",
            runs.size(),
            w.durationS(),
            wallS,
            threadCount,
            runs.size() * w.durationS() / wallS));
    outWriter.println(
        "wrote "
            + dir.resolve("summary.json")
            + ", "
            + WhatIf.WAIT_FILE
            + (w.upstream().tokensPerS() != null ? ", " + WhatIf.CAP_FILE : ""));
    outWriter.flush();
    return 0;
  }

  private List<WhatIf.Result> simulate(
      Workload w, List<Configuration> runs, int threadCount, ProgressBar progress) {
    ExecutorService pool =
        Executors.newFixedThreadPool(
            threadCount,
            r -> {
              Thread t = new Thread(r, "what-if-run");
              t.setDaemon(true);
              return t;
            });
    try {
      List<Future<WhatIf.Result>> futures = new ArrayList<>();
      for (Configuration c : runs) {
        futures.add(
            pool.submit(
                () -> {
                  Recording recording =
                      new SimRunner()
                          .run(
                              w, c, seed, percent -> progress.step(c.name() + " " + percent + "%"));
                  return WhatIf.measure(c.name(), w, recording, deadlineS);
                }));
      }
      List<WhatIf.Result> results = new ArrayList<>();
      for (Future<WhatIf.Result> f : futures) {
        results.add(f.get());
      }
      return results;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    } catch (ExecutionException e) {
      throw e.getCause() instanceof RuntimeException r ? r : new IllegalStateException(e);
    } finally {
      pool.shutdownNow();
    }
  }

  /** The file's name without its extension: the policy's name in the reports. */
  static String policyName(Path file) {
    String name = file.getFileName().toString();
    int dot = name.lastIndexOf('.');
    return dot > 0 ? name.substring(0, dot) : name;
  }

  private static Policy readPolicy(Path file) {
    try {
      return PolicyYaml.read(file);
    } catch (IOException e) {
      throw new UncheckedIOException("--policy: cannot read " + file + ": " + e.getMessage(), e);
    } catch (InvalidPolicyException e) {
      throw new IllegalArgumentException("--policy " + file + ": " + e.getMessage(), e);
    }
  }
}
