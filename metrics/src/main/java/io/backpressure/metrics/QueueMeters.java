package io.backpressure.metrics;

import static io.backpressure.metrics.MeterNames.*;

import io.backpressure.core.Cost;
import io.backpressure.core.RejectReason;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * The counters and the deferral timer of one priority class (or, with tenant tags, of one tenant in
 * one class), registered once so that recording is a field read and an add. Thread-safe.
 */
@SuppressWarnings(
    "EnumOrdinal") // the rejected counters are an array indexed by reason, read per call
final class QueueMeters {
  /** Deferral histogram boundaries: from the gate's shortest deferral (1 ms) to a minute. */
  static final Duration[] DEFER_BUCKETS =
      millis(1, 5, 10, 25, 50, 100, 250, 500, 1_000, 2_500, 5_000, 10_000, 30_000, 60_000);

  /**
   * Histogram boundaries of the wait until a terminal refusal's reset: a minute to a month (a
   * provider's stop, a day's or a month's window).
   */
  static final Duration[] RESET_BUCKETS = {
    Duration.ofMinutes(1),
    Duration.ofMinutes(10),
    Duration.ofHours(1),
    Duration.ofHours(6),
    Duration.ofHours(12),
    Duration.ofHours(25),
    Duration.ofDays(7),
    Duration.ofDays(31)
  };

  private final Counter admitted;
  private final Counter deferred;
  private final Counter failedOpen;
  private final Counter error;
  private final Counter[] rejected;
  private final Counter[] costAdmitted;
  private final Counter[] costReconciled;
  private final Counter[] costRefunded;
  private final Counter[] costOverrun;
  private final Counter releasesApplied;
  private final Counter releasesIgnored;
  private final Timer deferDelay;
  private final Timer limitReset;
  private final Timer quotaReset;
  private final List<String> dimensions;

  /**
   * Registers the meters of one queue key.
   *
   * @param tags {@code target}, {@code priority} and, when tenants are tagged, {@code tenant}
   * @param dimensions the policy's dimension names, in order
   * @param registered receives every meter registered, so its owner can remove them
   */
  QueueMeters(
      MeterRegistry registry, Tags tags, List<String> dimensions, Consumer<Meter> registered) {
    this.dimensions = List.copyOf(dimensions);
    Meters m = new Meters(registry, tags, registered);
    admitted = m.admission("admitted", NO_REASON);
    deferred = m.admission("deferred", NO_REASON);
    failedOpen = m.admission("failed_open", NO_REASON);
    error = m.admission("error", NO_REASON);
    RejectReason[] reasons = RejectReason.values();
    rejected = new Counter[reasons.length];
    for (RejectReason reason : reasons) {
      rejected[reason.ordinal()] = m.admission("rejected", reason.name().toLowerCase(Locale.ROOT));
    }
    int n = dimensions.size();
    costAdmitted = new Counter[n];
    costReconciled = new Counter[n];
    costRefunded = new Counter[n];
    costOverrun = new Counter[n];
    for (int d = 0; d < n; d++) {
      String dim = dimensions.get(d);
      costAdmitted[d] =
          m.cost(COST_ADMITTED, dim, "Cost debited by admitted calls (reservation included)");
      costReconciled[d] = m.cost(COST_RECONCILED, dim, "Actual cost reported by applied releases");
      costRefunded[d] =
          m.cost(COST_REFUNDED, dim, "Debited minus actual, where the call used less");
      costOverrun[d] = m.cost(COST_OVERRUN, dim, "Actual minus debited, where the call used more");
    }
    releasesApplied = m.release("applied");
    releasesIgnored = m.release("ignored");
    deferDelay =
        m.add(
            Timer.builder(DEFER_DELAY)
                .description("Retry-after (Δ) handed to deferred calls")
                .tags(tags)
                .serviceLevelObjectives(DEFER_BUCKETS)
                .register(registry));
    limitReset = m.reset(RejectReason.LIMIT_REACHED);
    quotaReset = m.reset(RejectReason.QUOTA_EXHAUSTED);
  }

  void admitted(Cost debited) {
    admitted.increment();
    for (int d = 0; d < costAdmitted.length; d++) {
      double amount = debited.amount(dimensions.get(d));
      if (amount != 0) {
        costAdmitted[d].increment(amount);
      }
    }
  }

  void failedOpen() {
    failedOpen.increment();
  }

  void deferred(Duration retryAfter) {
    deferred.increment();
    deferDelay.record(retryAfter.toNanos(), TimeUnit.NANOSECONDS);
  }

  void rejected(RejectReason reason) {
    rejected[reason.ordinal()].increment();
  }

  /**
   * A terminal refusal until a reset ({@link RejectReason#LIMIT_REACHED} by a calendar limit or a
   * provider's stop, {@link RejectReason#QUOTA_EXHAUSTED}): counted with what it said to wait.
   */
  void refusedUntil(RejectReason reason, Duration untilReset) {
    rejected(reason);
    Timer reset = reason == RejectReason.QUOTA_EXHAUSTED ? quotaReset : limitReset;
    reset.record(untilReset.isNegative() ? 0 : untilReset.toNanos(), TimeUnit.NANOSECONDS);
  }

  void error() {
    error.increment();
  }

  /** An applied release: the actual cost, and the refund or overrun against what was debited. */
  void released(Cost debited, Cost actual) {
    releasesApplied.increment();
    for (int d = 0; d < costReconciled.length; d++) {
      String dim = dimensions.get(d);
      double used = actual.amount(dim);
      double difference = debited.amount(dim) - used;
      if (used != 0) {
        costReconciled[d].increment(used);
      }
      if (difference > 0) {
        costRefunded[d].increment(difference);
      } else if (difference < 0) {
        costOverrun[d].increment(-difference);
      }
    }
  }

  /** A release the gate ignored: repeated, expired, or of a failed-open grant. */
  void releaseIgnored() {
    releasesIgnored.increment();
  }

  private static Duration[] millis(long... values) {
    Duration[] durations = new Duration[values.length];
    for (int i = 0; i < values.length; i++) {
      durations[i] = Duration.ofMillis(values[i]);
    }
    return durations;
  }

  /** Registration helpers sharing one registry, tag set and sink. */
  private record Meters(MeterRegistry registry, Tags tags, Consumer<Meter> registered) {
    Counter admission(String outcome, String reason) {
      return add(
          Counter.builder(ADMISSIONS)
              .description("Admission decisions by outcome; reason is set on rejected")
              .tags(tags)
              .tag(OUTCOME, outcome)
              .tag(REASON, reason)
              .register(registry));
    }

    Counter cost(String name, String dimension, String description) {
      return add(
          Counter.builder(name)
              .description(description)
              .tags(tags)
              .tag(DIMENSION, dimension)
              .register(registry));
    }

    Timer reset(RejectReason reason) {
      return add(
          Timer.builder(LIMIT_RESET_DELAY)
              .description(
                  "Time from a terminal refusal until its reset: a calendar limit's window or a"
                      + " provider's stop (limit_reached), a quota's window (quota_exhausted)")
              .tags(tags)
              .tag(REASON, reason.name().toLowerCase(Locale.ROOT))
              .serviceLevelObjectives(RESET_BUCKETS)
              .register(registry));
    }

    Counter release(String result) {
      return add(
          Counter.builder(RELEASES)
              .description(
                  "Releases by result: applied, or ignored (repeated, expired or failed-open grant)")
              .tags(tags)
              .tag(RESULT, result)
              .register(registry));
    }

    <M extends Meter> M add(M meter) {
      registered.accept(meter);
      return meter;
    }
  }
}
