package io.backpressure.mock.limit;

/**
 * A bucket of capacity {@code C} that starts full and refills continuously at {@code C / P}. Admits
 * while the bucket holds the amount. A rejected call that counts may drive the level below zero,
 * which delays the next admission accordingly.
 */
final class TokenBucket implements WindowLimiter {

  private final long periodNanos;
  private double capacity;
  private double slack;
  private double perNano;
  private double level;
  private long last;
  private boolean started;

  TokenBucket(double capacity, long periodNanos) {
    this.periodNanos = periodNanos;
    this.capacity = capacity;
    this.slack = WindowLimiter.slack(capacity);
    this.perNano = capacity / periodNanos;
    this.level = capacity;
  }

  @Override
  public void advance(long now) {
    if (started) {
      level = Math.min(capacity, level + (now - last) * perNano);
    }
    started = true;
    last = now;
  }

  @Override
  public long waitNanos(long now, double amount) {
    if (amount > capacity + slack) {
      return Verdict.NEVER;
    }
    if (level + slack >= amount) {
      return 0;
    }
    return Math.max(1, nanosToRefill(amount - slack - level));
  }

  @Override
  public void debit(long now, double amount) {
    level -= amount;
  }

  @Override
  public void refund(long now, long debitedAt, double amount) {
    level = Math.min(capacity, level + amount);
  }

  @Override
  public void setLimit(double limit) {
    capacity = limit;
    slack = WindowLimiter.slack(limit);
    perNano = limit / periodNanos;
    level = Math.min(level, capacity);
  }

  @Override
  public double remaining() {
    return Math.max(0.0, level);
  }

  @Override
  public long resetNanos(long now) {
    return level >= capacity ? 0 : nanosToRefill(capacity - level);
  }

  private long nanosToRefill(double amount) {
    return (long) Math.min(Verdict.NEVER - 1.0, Math.ceil(amount / perNano));
  }
}
