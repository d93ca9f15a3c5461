package io.backpressure.metrics;

import static io.backpressure.metrics.MeterNames.*;

import io.backpressure.core.Limits;
import io.backpressure.core.Policy;
import io.backpressure.core.QuotaAdmin;
import io.backpressure.core.QuotaHolder;
import io.backpressure.core.QuotaUse;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import java.util.function.ToDoubleFunction;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Gauges of a gate's limits beyond the per-second caps ({@link Limits}), read when the registry is
 * scraped, never on the admission path: the calls holding a concurrency lease, the concurrency
 * limit in force (an adaptive one's current value) and the latency an adaptive limit measured last,
 * the leases that expired unreleased, and each class's quota used and remaining in its current
 * window. A class's quota is read at most once per {@code maxAge} (one round trip on Redis), its
 * two gauges from the one reading; a class without a quota, or a source that fails, reads NaN.
 * Thread-safe.
 */
final class LimitMeters {
  private static final Logger LOG = LoggerFactory.getLogger(LimitMeters.class);

  private LimitMeters() {}

  /**
   * Registers the lease meters when {@code inFlight} and {@code expired} are given, the limit's
   * gauge when {@code limit} is, the measured latency's gauge when {@code latencyMicros} is, and
   * the quota gauges of every class of {@code policy} when {@code quotas} is.
   */
  static void register(
      MeterRegistry registry,
      Tags target,
      Policy policy,
      @Nullable LongSupplier inFlight,
      @Nullable LongSupplier expired,
      @Nullable LongSupplier limit,
      @Nullable LongSupplier latencyMicros,
      @Nullable QuotaAdmin quotas,
      long maxAgeNanos,
      Consumer<Meter> registered) {
    if (inFlight != null && expired != null) {
      registered.accept(
          Gauge.builder(LIMIT_IN_FLIGHT, inFlight, s -> (double) s.getAsLong())
              .description("Calls holding a concurrency lease now (0 without a concurrency limit)")
              .tags(target)
              .strongReference(true)
              .register(registry));
      registered.accept(
          FunctionCounter.builder(LIMIT_LEASES_EXPIRED, expired, s -> (double) s.getAsLong())
              .description(
                  "Concurrency leases that expired unreleased (a crashed worker, a lost release)")
              .tags(target)
              .register(registry));
    }
    if (limit != null) {
      registered.accept(
          Gauge.builder(LIMIT_CONCURRENCY, limit, s -> (double) s.getAsLong())
              .description(
                  "The target's concurrency limit in force: an adaptive limit's current value,"
                      + " else max_in_flight (0 without a concurrency limit)")
              .tags(target)
              .strongReference(true)
              .register(registry));
    }
    if (latencyMicros != null) {
      registered.accept(
          Gauge.builder(LIMIT_LATENCY, latencyMicros, s -> s.getAsLong() / 1e6)
              .description(
                  "The latency the adaptive concurrency limit measured last, from admission to"
                      + " release (the one a call's deadline must cover); 0 before the first"
                      + " sample and without an adaptive limit")
              .tags(target)
              .baseUnit("seconds")
              .strongReference(true)
              .register(registry));
    }
    if (quotas == null) {
      return;
    }
    for (String priority : policy.priorityNames()) {
      Reading reading =
          new Reading(() -> quotas.quotaUse(QuotaHolder.priorityClass(priority)), maxAgeNanos);
      Tags tags = target.and(PRIORITY, priority);
      registered.accept(
          gauge(
              registry,
              QUOTA_USED,
              tags,
              "What the class's quota window holds, in the quota's unit (tokens or money); NaN"
                  + " without a quota",
              reading,
              QuotaUse::used));
      registered.accept(
          gauge(
              registry,
              QUOTA_REMAINING,
              tags,
              "What the class's quota window may still admit, in the quota's unit; NaN without a"
                  + " quota",
              reading,
              QuotaUse::remaining));
    }
  }

  private static Gauge gauge(
      MeterRegistry registry,
      String name,
      Tags tags,
      String description,
      Reading reading,
      ToDoubleFunction<QuotaUse> read) {
    return Gauge.builder(
            name,
            reading,
            r -> {
              QuotaUse use = r.get();
              return use == null ? Double.NaN : read.applyAsDouble(use);
            })
        .description(description)
        .tags(tags)
        .strongReference(true)
        .register(registry);
  }

  /** One class's quota use, read at most once per {@code maxAgeNanos}; null without a quota. */
  private static final class Reading {
    private final Supplier<QuotaUse> source;
    private final long maxAgeNanos;
    private long takenAt;
    private boolean taken;
    private @Nullable QuotaUse use;

    Reading(Supplier<QuotaUse> source, long maxAgeNanos) {
      this.source = source;
      this.maxAgeNanos = maxAgeNanos;
    }

    synchronized @Nullable QuotaUse get() {
      long now = System.nanoTime();
      if (taken && now - takenAt < maxAgeNanos) {
        return use;
      }
      try {
        use = source.get();
      } catch (RuntimeException e) {
        // No quota on the class (InvalidPolicyException), or the state did not answer.
        LOG.debug("could not read a class quota", e);
        use = null;
      }
      takenAt = now;
      taken = true;
      return use;
    }
  }
}
