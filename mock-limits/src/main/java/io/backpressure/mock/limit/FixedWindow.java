package io.backpressure.mock.limit;

/**
 * A counter per aligned window {@code [i·P, (i+1)·P)} of the time scale, reset when time enters the
 * next window. Admits while the window's count plus the amount stays within the cap.
 */
final class FixedWindow implements WindowLimiter {

  private double limit;
  private double slack;
  private final long period;
  private long window = Long.MIN_VALUE;
  private double used;

  FixedWindow(double limit, long periodNanos) {
    this.limit = limit;
    this.slack = WindowLimiter.slack(limit);
    this.period = periodNanos;
  }

  @Override
  public void advance(long now) {
    long current = Math.floorDiv(now, period);
    if (current != window) {
      window = current;
      used = 0;
    }
  }

  @Override
  public long waitNanos(long now, double amount) {
    if (amount > limit + slack) {
      return Verdict.NEVER;
    }
    if (used + amount <= limit + slack) {
      return 0;
    }
    return windowEnd() - now;
  }

  @Override
  public void debit(long now, double amount) {
    used += amount;
  }

  @Override
  public void refund(long now, long debitedAt, double amount) {
    if (Math.floorDiv(debitedAt, period) == window) {
      used = Math.max(0.0, used - amount);
    }
  }

  @Override
  public void setLimit(double limit) {
    this.limit = limit;
    this.slack = WindowLimiter.slack(limit);
  }

  @Override
  public double remaining() {
    return Math.max(0.0, limit - used);
  }

  @Override
  public long resetNanos(long now) {
    return used > 0 ? windowEnd() - now : 0;
  }

  private long windowEnd() {
    return (window + 1) * period;
  }
}
