package io.backpressure.mock.limit;

/**
 * An exact sliding log: the debits of the last period {@code P} as (time, amount) entries in a ring
 * buffer, so that the amount debited in {@code (now − P, now]} plus the new amount stays within the
 * cap. Every window {@code [s, s + P)} then holds at most the cap, whatever {@code s}: its entries
 * all lie in the window that was checked when its latest entry was admitted.
 *
 * <p>Each entry stores the running total of all amounts debited up to and including it, so the
 * window's sum is one subtraction and the time at which enough has expired for a new amount is a
 * binary search. Entries debited at the same instant are merged. Work per call: amortised O(1) to
 * expire entries, O(log n) for a wait, with n the entries in one period.
 */
final class SlidingLog implements WindowLimiter {

  private static final int INITIAL_CAPACITY = 64;

  private double limit;
  private double slack;
  private final long period;
  private long[] times = new long[INITIAL_CAPACITY];
  private double[] totals = new double[INITIAL_CAPACITY];
  private int head;
  private int size;

  /** Running total of every amount debited since the log was last empty. */
  private double total;

  /** The part of {@link #total} that has expired from the window. */
  private double expired;

  SlidingLog(double limit, long periodNanos) {
    this.limit = limit;
    this.slack = WindowLimiter.slack(limit);
    this.period = periodNanos;
  }

  @Override
  public void advance(long now) {
    while (size > 0 && now - times[head] >= period) {
      expired = totals[head];
      head = (head + 1) % times.length;
      size--;
    }
    if (size == 0) {
      total = 0;
      expired = 0;
    }
  }

  @Override
  public long waitNanos(long now, double amount) {
    if (amount > limit + slack) {
      return Verdict.NEVER;
    }
    double inWindow = total - expired;
    if (inWindow + amount <= limit + slack) {
      return 0;
    }
    // The first entry whose expiry leaves room: the running total up to it covers the excess.
    double mustExpire = expired + inWindow + amount - limit - slack;
    int lo = 0;
    int hi = size - 1;
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      if (totals[slot(mid)] >= mustExpire) {
        hi = mid;
      } else {
        lo = mid + 1;
      }
    }
    return times[slot(lo)] + period - now;
  }

  @Override
  public void debit(long now, double amount) {
    if (amount <= 0) {
      return;
    }
    total += amount;
    if (size > 0 && times[slot(size - 1)] == now) {
      totals[slot(size - 1)] = total;
      return;
    }
    if (size == times.length) {
      grow();
    }
    int tail = slot(size);
    times[tail] = now;
    totals[tail] = total;
    size++;
  }

  /**
   * Takes the amount from the entry at {@code debitedAt} and from the running totals of it and of
   * every later entry; O(n) in the entries of one period.
   */
  @Override
  public void refund(long now, long debitedAt, double amount) {
    int lo = 0;
    int hi = size - 1;
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      if (times[slot(mid)] < debitedAt) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    if (size == 0 || times[slot(lo)] != debitedAt) {
      return; // expired, or never debited
    }
    double before = lo == 0 ? expired : totals[slot(lo - 1)];
    double given = Math.min(amount, totals[slot(lo)] - before);
    for (int i = lo; i < size; i++) {
      totals[slot(i)] -= given;
    }
    total -= given;
  }

  @Override
  public void setLimit(double limit) {
    this.limit = limit;
    this.slack = WindowLimiter.slack(limit);
  }

  @Override
  public double remaining() {
    return Math.max(0.0, limit - (total - expired));
  }

  @Override
  public long resetNanos(long now) {
    return size == 0 ? 0 : times[slot(size - 1)] + period - now;
  }

  /** Entries currently in the log; for tests. */
  int entries() {
    return size;
  }

  private int slot(int index) {
    return (head + index) % times.length;
  }

  private void grow() {
    long[] newTimes = new long[times.length * 2];
    double[] newTotals = new double[times.length * 2];
    for (int i = 0; i < size; i++) {
      newTimes[i] = times[slot(i)];
      newTotals[i] = totals[slot(i)];
    }
    times = newTimes;
    totals = newTotals;
    head = 0;
  }
}
