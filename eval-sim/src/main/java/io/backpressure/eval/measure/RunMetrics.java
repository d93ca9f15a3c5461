package io.backpressure.eval.measure;

import java.util.Map;

/**
 * The metrics of one run (defined in eval/README.md), keyed by their JSON names in the order listed
 * there, plus the per-tenant service over time for the heatmap. A value is NaN where it is
 * undefined in this run (e.g. a p95 of a class with no successful call in the window).
 *
 * @param values metric name to value, in report order
 * @param heat OK calls per second per tenant (workload order) and time bin
 * @param usage what reached the provider and counted against its caps, per second and time bin: row
 *     0 requests, row 1 tokens (the workload's own calls)
 * @param binSeconds the width of one time bin
 */
public record RunMetrics(
    Map<String, Value> values, double[][] heat, double[][] usage, double binSeconds) {

  /** One metric's value in one run. */
  public sealed interface Value permits Scalar, ByKey {}

  /** A single number. */
  public record Scalar(double value) implements Value {}

  /** One number per class, tenant or dimension, in workload order. */
  public record ByKey(Map<String, Double> values) implements Value {}
}
