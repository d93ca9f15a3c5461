package io.backpressure.mock.limit;

import java.time.Duration;
import java.util.Objects;

/**
 * One provider cap: at most {@code limitPerPeriod} units (requests or tokens) per {@code period},
 * counted by {@code model}. For {@link WindowModel#BUCKET} the bucket holds {@code limitPerPeriod}
 * and refills at {@code limitPerPeriod / period}.
 *
 * @param model how usage is counted
 * @param limitPerPeriod the cap; finite and {@code > 0}
 * @param period the accounting period; at least one millisecond and at most one day
 */
public record LimitSpec(WindowModel model, double limitPerPeriod, Duration period) {

  private static final Duration MIN_PERIOD = Duration.ofMillis(1);
  private static final Duration MAX_PERIOD = Duration.ofDays(1);

  /**
   * @throws IllegalArgumentException naming the field and its allowed range
   */
  public LimitSpec {
    Objects.requireNonNull(model, "model");
    Objects.requireNonNull(period, "period");
    if (!(limitPerPeriod > 0) || Double.isInfinite(limitPerPeriod)) {
      throw new IllegalArgumentException(
          "limitPerPeriod must be finite and > 0, but was: " + limitPerPeriod);
    }
    if (period.compareTo(MIN_PERIOD) < 0 || period.compareTo(MAX_PERIOD) > 0) {
      throw new IllegalArgumentException(
          "period must be in the range [1ms, 1d], but was: " + period);
    }
  }

  /** A cap of {@code limit} per {@code period}, counted by {@code model}. */
  public static LimitSpec of(WindowModel model, double limit, Duration period) {
    return new LimitSpec(model, limit, period);
  }

  /** A cap of {@code limitPerSecond} per one-second period. */
  public static LimitSpec perSecond(WindowModel model, double limitPerSecond) {
    return new LimitSpec(model, limitPerSecond, Duration.ofSeconds(1));
  }

  /** The period in nanoseconds. */
  public long periodNanos() {
    return period.toNanos();
  }
}
