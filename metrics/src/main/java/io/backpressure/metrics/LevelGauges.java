package io.backpressure.metrics;

import static io.backpressure.metrics.MeterNames.*;

import io.backpressure.core.GateLevels;
import io.backpressure.core.Policy;
import io.backpressure.core.feedback.FeedbackState;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Supplier;
import java.util.function.ToDoubleFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Gauges of a gate's caps and bucket levels, read when the registry is scraped, never on the
 * admission path. One scrape reads many gauges; they share one sample of the policy and the levels,
 * taken at most once per {@code maxAge}, so a Redis-backed source costs one round trip per scrape.
 * A source that fails makes the level gauges read NaN until it answers again. Thread-safe.
 */
final class LevelGauges {
  private static final Logger LOG = LoggerFactory.getLogger(LevelGauges.class);

  private final Supplier<Policy> policies;
  private final Supplier<GateLevels> levels;
  private final Supplier<FeedbackState> feedback;
  private final long maxAgeNanos;
  private Sample sample;

  private LevelGauges(
      Supplier<Policy> policies,
      Supplier<GateLevels> levels,
      Supplier<FeedbackState> feedback,
      long maxAgeNanos) {
    this.policies = policies;
    this.levels = levels;
    this.feedback = feedback;
    this.maxAgeNanos = maxAgeNanos;
  }

  /**
   * Registers the cap gauge per dimension and, when {@code levels} is not null, the level,
   * utilisation and active-queue gauges. With {@code feedback} (may be null), utilisation is
   * against the burst the rule holds under the effective caps: the configured burst times {@code
   * applied / configured}.
   */
  static void register(
      MeterRegistry registry,
      Tags target,
      Policy policy,
      Supplier<Policy> policies,
      Supplier<GateLevels> levels,
      Supplier<FeedbackState> feedback,
      long maxAgeNanos,
      Consumer<Meter> registered) {
    LevelGauges g = new LevelGauges(policies, levels, feedback, maxAgeNanos);
    List<String> dims = policy.dimensionNames();
    for (String dim : dims) {
      Tags tags = target.and(DIMENSION, dim);
      registered.accept(
          g.gauge(
              registry,
              CAP,
              tags,
              "The dimension's cap C_d, in units per second",
              s -> s.cap(dim)));
      if (levels != null) {
        registered.accept(
            g.gauge(
                registry,
                BUCKET_LEVEL,
                tags,
                "Global (L1) bucket level, in the dimension's units; negative after overruns",
                s -> s.level(dim)));
        registered.accept(
            g.gauge(
                registry,
                BUCKET_UTILIZATION,
                tags,
                "1 - level / burst of the global bucket: 0 full (idle), 1 drained, above 1 in debt",
                s -> s.utilization(dim)));
      }
    }
    if (levels == null) {
      return;
    }
    for (String priority : policy.priorityNames()) {
      Tags tags = target.and(PRIORITY, priority);
      registered.accept(
          g.gauge(
              registry,
              QUEUES_ACTIVE,
              tags,
              "Active (tenant, class) queues of the class",
              s -> s.activeQueues(priority)));
      for (String dim : dims) {
        registered.accept(
            g.gauge(
                registry,
                CLASS_BUCKET_LEVEL,
                tags.and(DIMENSION, dim),
                "Class (L2) bucket level, in the dimension's units",
                s -> s.classLevel(priority, dim)));
      }
    }
  }

  private Gauge gauge(
      MeterRegistry registry,
      String name,
      Tags tags,
      String description,
      ToDoubleFunction<Sample> read) {
    return Gauge.builder(
            name,
            this,
            g -> {
              Sample s = g.sample();
              return s == null ? Double.NaN : read.applyAsDouble(s);
            })
        .description(description)
        .tags(tags)
        .strongReference(true)
        .register(registry);
  }

  private synchronized Sample sample() {
    long now = System.nanoTime();
    if (sample != null && now - sample.takenAt < maxAgeNanos) {
      return sample;
    }
    try {
      sample =
          new Sample(
              now,
              policies.get(),
              levels == null ? null : levels.get(),
              levels == null || feedback == null ? null : feedback.get());
    } catch (RuntimeException e) {
      LOG.debug("could not sample the gate's levels", e);
      sample = new Sample(now, null, null, null);
    }
    return sample;
  }

  /** One reading of the policy and the levels; either is null when it could not be read. */
  private record Sample(long takenAt, Policy policy, GateLevels levels, FeedbackState feedback) {
    double cap(String dim) {
      int d = policy == null ? -1 : policy.dimensionIndex(dim);
      return d < 0 ? Double.NaN : policy.dimensions().get(d).capPerSecond();
    }

    double level(String dim) {
      return levels == null ? Double.NaN : orNaN(levels.global().get(dim));
    }

    double utilization(String dim) {
      int d = policy == null ? -1 : policy.dimensionIndex(dim);
      if (d < 0) {
        return Double.NaN;
      }
      double burst = policy.dimensions().get(d).burst();
      FeedbackState.Dimension learned = feedback == null ? null : feedback.dimensions().get(dim);
      if (learned != null && learned.configured() > 0 && learned.applied() > 0) {
        burst *= learned.applied() / learned.configured();
      }
      return 1 - level(dim) / burst;
    }

    double classLevel(String priority, String dim) {
      Map<String, Double> byDim = levels == null ? null : levels.classes().get(priority);
      return byDim == null ? Double.NaN : orNaN(byDim.get(dim));
    }

    double activeQueues(String priority) {
      Integer n = levels == null ? null : levels.activeQueues().get(priority);
      return n == null ? Double.NaN : n;
    }

    private static double orNaN(Double value) {
      return value == null ? Double.NaN : value;
    }
  }
}
