package io.backpressure.eval.report;

import io.backpressure.eval.measure.Metrics;
import io.backpressure.eval.measure.RunMetrics;
import io.backpressure.eval.measure.Stats;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The repeats of one workload under each configuration, reduced to a mean and a 95 % Student-t
 * half-width per metric: what {@code summary.json}, {@code report.md} and the plots show.
 *
 * @param workload the workload's name
 * @param mode {@code sim} or {@code real}
 * @param repeats runs per configuration
 * @param seed the base seed; repeat {@code i} of every configuration uses the same derived seed
 * @param durationS the run length
 * @param scale the divisor the workload was scaled down by (1: as written)
 * @param faults the faults injected into every run, as given ({@code --fault}); empty for none
 * @param configs configuration name to its results, in the order run
 */
public record Summary(
    String workload,
    String mode,
    int repeats,
    long seed,
    double durationS,
    double scale,
    List<String> faults,
    Map<String, ConfigResult> configs) {

  /**
   * One configuration's results.
   *
   * @param metrics metric name to its estimate, in report order
   * @param heat mean OK calls/s per tenant and time bin over the repeats
   * @param usage mean requests/s (row 0) and tokens/s (row 1) counted by the provider per time bin
   * @param binSeconds one time bin's width
   */
  public record ConfigResult(
      Map<String, Aggregate> metrics, double[][] heat, double[][] usage, double binSeconds) {

    /** The estimate of a scalar metric, or null when the metric is absent. */
    public Stats.Estimate scalar(String metric) {
      return metrics.get(metric) instanceof Scalar s ? s.estimate() : null;
    }

    /** The estimate of one key of a keyed metric, or null. */
    public Stats.Estimate keyed(String metric, String key) {
      return metrics.get(metric) instanceof ByKey k ? k.estimates().get(key) : null;
    }
  }

  /** One metric over the repeats. */
  sealed interface Aggregate permits Scalar, ByKey {}

  /** A scalar metric's estimate. */
  record Scalar(Stats.Estimate estimate) implements Aggregate {}

  /** A keyed metric's estimate per key. */
  record ByKey(Map<String, Stats.Estimate> estimates) implements Aggregate {}

  /** Reduces the runs of one configuration (one per repeat, in repeat order). */
  public static ConfigResult reduce(List<RunMetrics> runs) {
    Map<String, Aggregate> metrics = new LinkedHashMap<>();
    for (String name : runs.get(0).values().keySet()) {
      if (runs.get(0).values().get(name) instanceof RunMetrics.Scalar) {
        double[] values =
            runs.stream()
                .mapToDouble(r -> ((RunMetrics.Scalar) r.values().get(name)).value())
                .toArray();
        metrics.put(name, new Scalar(Stats.meanCi95(values)));
      } else {
        Set<String> keys = new LinkedHashSet<>();
        for (RunMetrics r : runs) {
          keys.addAll(((RunMetrics.ByKey) r.values().get(name)).values().keySet());
        }
        Map<String, Stats.Estimate> byKey = new LinkedHashMap<>();
        for (String key : keys) {
          List<Double> values = new ArrayList<>();
          for (RunMetrics r : runs) {
            Double v = ((RunMetrics.ByKey) r.values().get(name)).values().get(key);
            values.add(v == null ? Double.NaN : v);
          }
          byKey.put(
              key, Stats.meanCi95(values.stream().mapToDouble(Double::doubleValue).toArray()));
        }
        metrics.put(name, new ByKey(byKey));
      }
    }
    return new ConfigResult(
        metrics,
        Metrics.meanBins(runs, RunMetrics::heat),
        Metrics.meanBins(runs, RunMetrics::usage),
        runs.get(0).binSeconds());
  }
}
