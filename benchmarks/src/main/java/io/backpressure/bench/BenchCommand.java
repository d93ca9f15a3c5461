package io.backpressure.bench;

import java.util.concurrent.Callable;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.Options;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code ./backpressure bench memory}: the in-memory admission benchmark through JMH. */
@Command(name = "memory", mixinStandardHelpOptions = true,
    description = "Admissions per second of the in-memory gate (JMH), at 10 and 10 000 tenants.")
public final class BenchCommand implements Callable<Integer> {

  @Option(names = "--threads", description = "Benchmark threads (default: ${DEFAULT-VALUE}).", defaultValue = "1")
  int threads;

  @Option(names = "--forks", description = "JVM forks (default: ${DEFAULT-VALUE}).", defaultValue = "1")
  int forks;

  @Option(names = "--iterations", description = "Measured iterations (default: ${DEFAULT-VALUE}).", defaultValue = "5")
  int iterations;

  @Option(names = "--seconds", description = "Seconds per iteration (default: ${DEFAULT-VALUE}).", defaultValue = "2")
  int seconds;

  public static void main(String[] args) {
    System.exit(new picocli.CommandLine(new BenchCommand()).execute(args));
  }

  @Override
  public Integer call() throws RunnerException {
    if (threads < 1 || forks < 0 || iterations < 1 || seconds < 1) {
      System.err.println("bench: --threads, --iterations and --seconds must be ≥ 1 and --forks ≥ 0");
      return 2;
    }
    Options options = new OptionsBuilder()
        .include(InMemoryAdmissionBenchmark.class.getName())
        .threads(threads)
        .forks(forks)
        .warmupIterations(2)
        .warmupTime(TimeValue.seconds(seconds))
        .measurementIterations(iterations)
        .measurementTime(TimeValue.seconds(seconds))
        .build();
    for (RunResult result : new Runner(options).run()) {
      System.out.printf("%-18s tenants=%-6s %,14.0f ops/s ± %,.0f%n",
          result.getParams().getBenchmark().replaceAll(".*\\.", ""),
          result.getParams().getParam("tenants"),
          result.getPrimaryResult().getScore(),
          result.getPrimaryResult().getScoreError());
    }
    return 0;
  }
}
