package io.backpressure.bench;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.Callable;
import org.openjdk.jmh.profile.GCProfiler;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.Options;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code ./backpressure bench memory}: the in-memory admission benchmarks through JMH with its GC
 * profiler, printing throughput and allocation per operation ({@code gc.alloc.rate.norm}).
 */
@Command(
    name = "memory",
    mixinStandardHelpOptions = true,
    description =
        "Admissions per second and bytes allocated per call of the in-memory gate (JMH -prof gc), "
            + "at 10 and 10 000 tenants, with each rule; and two targets on two threads against one thread.")
public final class BenchCommand implements Callable<Integer> {

  @Option(
      names = "--threads",
      description = "Benchmark threads (default: ${DEFAULT-VALUE}).",
      defaultValue = "1")
  int threads;

  @Option(
      names = "--forks",
      description = "JVM forks (default: ${DEFAULT-VALUE}).",
      defaultValue = "1")
  int forks;

  @Option(
      names = "--iterations",
      description = "Measured iterations (default: ${DEFAULT-VALUE}).",
      defaultValue = "5")
  int iterations;

  @Option(
      names = "--seconds",
      description = "Seconds per iteration (default: ${DEFAULT-VALUE}).",
      defaultValue = "2")
  int seconds;

  public static void main(String[] args) {
    System.exit(new picocli.CommandLine(new BenchCommand()).execute(args));
  }

  @Override
  public Integer call() throws RunnerException {
    if (threads < 1 || forks < 0 || iterations < 1 || seconds < 1) {
      System.err.println(
          "bench: --threads, --iterations and --seconds must be ≥ 1 and --forks ≥ 0");
      return 2;
    }
    List<String> summary = new ArrayList<>();
    summary.add(
        String.format(
            "%-26s %-15s %-8s %-8s %21s %12s",
            "benchmark", "rule", "threads", "tenants", "ops/s", "B/op"));
    for (RunResult result : run(InMemoryAdmissionBenchmark.class, threads)) {
      summary.add(line(result, threads));
    }
    // Two targets on two threads against one thread on one: the registry's targets do not contend.
    double one = 0;
    double two = 0;
    for (int n : new int[] {1, 2}) {
      for (RunResult result : run(TargetsBenchmark.class, n)) {
        summary.add(line(result, n));
        if (n == 1) {
          one = result.getPrimaryResult().getScore();
        } else {
          two = result.getPrimaryResult().getScore();
        }
      }
    }
    summary.add(
        String.format("two targets on two threads: %.2f × one thread on one target", two / one));
    System.out.println();
    summary.forEach(System.out::println);
    return 0;
  }

  private Collection<RunResult> run(Class<?> benchmark, int threadCount) throws RunnerException {
    Options options =
        new OptionsBuilder()
            .include(benchmark.getName() + "\\.")
            .threads(threadCount)
            .forks(forks)
            .warmupIterations(2)
            .warmupTime(TimeValue.seconds(seconds))
            .measurementIterations(iterations)
            .measurementTime(TimeValue.seconds(seconds))
            .addProfiler(GCProfiler.class)
            .build();
    return new Runner(options).run();
  }

  /**
   * One line: throughput with its error, and bytes allocated per operation (JMH's
   * gc.alloc.rate.norm).
   */
  private static String line(RunResult result, int threadCount) {
    Result<?> allocation = result.getSecondaryResults().get("gc.alloc.rate.norm");
    String tenants = result.getParams().getParam("tenants");
    String rule = result.getParams().getParam("rule");
    return String.format(
        "%-26s %-15s %-8d %-8s %,12.0f ± %,-8.0f %10s",
        result.getParams().getBenchmark().replaceAll(".*\\.", ""),
        rule == null ? "nested-buckets" : rule,
        threadCount,
        tenants == null ? "10" : tenants,
        result.getPrimaryResult().getScore(),
        result.getPrimaryResult().getScoreError(),
        allocation == null ? "-" : String.format("%.0f", allocation.getScore()));
  }
}
