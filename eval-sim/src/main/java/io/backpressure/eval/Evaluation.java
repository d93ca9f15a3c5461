package io.backpressure.eval;

import io.backpressure.eval.measure.Metrics;
import io.backpressure.eval.measure.RunMetrics;
import io.backpressure.eval.report.Summary;
import io.backpressure.eval.sim.Configuration;
import io.backpressure.eval.sim.Runner;
import io.backpressure.eval.workload.Workload;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Runs the matrix (workloads × configurations × repeats) on a small thread pool and reduces it to
 * one {@link Summary} per workload. Each run is independent and deterministic, and results are
 * placed by index, so the summaries do not depend on the number of threads or on scheduling.
 */
public final class Evaluation {
  private Evaluation() {}

  /**
   * The seed of each repeat, derived from {@code seed}: every configuration's repeat {@code i} uses
   * {@code seeds[i]}, so configurations meet the same random draws (common random numbers).
   */
  public static long[] repeatSeeds(long seed, int repeats) {
    SplittableRandom random = new SplittableRandom(seed);
    long[] seeds = new long[repeats];
    for (int i = 0; i < repeats; i++) {
      seeds[i] = random.nextLong();
    }
    return seeds;
  }

  /**
   * Runs every (workload, configuration, repeat).
   *
   * @param threads worker threads, at least 1
   * @throws IllegalArgumentException if a configuration cannot run a workload (message from the
   *     run)
   */
  public static List<Summary> run(
      Runner runner,
      List<Workload> workloads,
      List<Configuration> configs,
      int repeats,
      long seed,
      int threads,
      ProgressBar progress) {
    long[] seeds = repeatSeeds(seed, repeats);
    ExecutorService pool =
        Executors.newFixedThreadPool(
            threads,
            r -> {
              Thread t = new Thread(r, "eval-run");
              t.setDaemon(true);
              return t;
            });
    try {
      List<List<List<Future<RunMetrics>>>> futures = new ArrayList<>();
      for (Workload w : workloads) {
        List<List<Future<RunMetrics>>> perConfig = new ArrayList<>();
        for (Configuration c : configs) {
          List<Future<RunMetrics>> perRepeat = new ArrayList<>();
          for (int i = 0; i < repeats; i++) {
            long s = seeds[i];
            String label = w.name() + " " + c.name() + " #" + (i + 1);
            perRepeat.add(
                pool.submit(
                    () -> {
                      RunMetrics metrics = Metrics.compute(w, runner.run(w, c, s));
                      progress.step(label);
                      return metrics;
                    }));
          }
          perConfig.add(perRepeat);
        }
        futures.add(perConfig);
      }
      List<Summary> summaries = new ArrayList<>();
      for (int wi = 0; wi < workloads.size(); wi++) {
        Map<String, Summary.ConfigResult> results = new LinkedHashMap<>();
        for (int ci = 0; ci < configs.size(); ci++) {
          List<RunMetrics> runs = new ArrayList<>();
          for (Future<RunMetrics> f : futures.get(wi).get(ci)) {
            runs.add(get(f));
          }
          results.put(configs.get(ci).name(), Summary.reduce(runs));
        }
        Workload w = workloads.get(wi);
        summaries.add(
            new Summary(
                w.name(),
                runner.mode(),
                repeats,
                seed,
                w.durationS(),
                w.scale(),
                runner.faults(),
                results));
      }
      return summaries;
    } finally {
      pool.shutdownNow();
    }
  }

  private static RunMetrics get(Future<RunMetrics> future) {
    try {
      return future.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof RuntimeException r) {
        throw r;
      }
      throw new IllegalStateException(e.getCause());
    }
  }
}
