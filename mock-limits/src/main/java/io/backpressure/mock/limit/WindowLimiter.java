package io.backpressure.mock.limit;

/**
 * One cap on one dimension, counted by one {@link WindowModel}. Time is passed in as nanoseconds on
 * the caller's scale; the caller brings the state to {@code now} with {@link #advance(long)} before
 * asking anything else at that instant, and never moves time backwards. Not thread-safe.
 */
sealed interface WindowLimiter permits FixedWindow, SlidingLog, TokenBucket {

  /** The limiter for {@code spec}, in its initial, unused state. */
  static WindowLimiter of(LimitSpec spec) {
    return switch (spec.model()) {
      case FIXED -> new FixedWindow(spec.limitPerPeriod(), spec.periodNanos());
      case SLIDING -> new SlidingLog(spec.limitPerPeriod(), spec.periodNanos());
      case BUCKET -> new TokenBucket(spec.limitPerPeriod(), spec.periodNanos());
    };
  }

  /**
   * Slack on capacity comparisons so that sums of fractional amounts that equal the cap on paper
   * are not refused for a rounding error in the last bit.
   */
  static double slack(double limit) {
    return 1e-12 * Math.max(1.0, limit);
  }

  /** Expires, resets or refills what time has released up to {@code now}. */
  void advance(long now);

  /**
   * Nanoseconds from {@code now} until {@code amount} would fit if nothing else were debited: 0
   * when it fits now, {@link Verdict#NEVER} when it exceeds the cap itself.
   */
  long waitNanos(long now, double amount);

  /** Counts {@code amount} as used at {@code now}, whether or not it fits. */
  void debit(long now, double amount);

  /**
   * Gives back up to {@code amount} of what was debited at {@code debitedAt} ({@code <= now}), if
   * that debit still counts at {@code now}: a fixed window gives it back while {@code debitedAt}
   * lies in the current window, a sliding log from its entry at {@code debitedAt} (never more than
   * that entry holds) while the entry has not expired, a bucket refills by it (never past its
   * capacity). What has already expired is gone and nothing changes. The caller has brought the
   * state to now with {@link #advance(long)}.
   */
  void refund(long now, long debitedAt, double amount);

  /**
   * Changes the cap to {@code limit} (finite, {@code > 0}) from now on, keeping what was already
   * used: a fixed window keeps its count, a sliding log its entries, a bucket its level (cut to the
   * new capacity) and refills at the new rate. The caller has brought the state to now with {@link
   * #advance(long)}.
   */
  void setLimit(double limit);

  /** Units left before the cap binds, never negative. */
  double remaining();

  /** Nanoseconds from {@code now} until the limiter is back to its initial, unused state. */
  long resetNanos(long now);
}
