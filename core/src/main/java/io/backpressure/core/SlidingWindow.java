package io.backpressure.core;

import java.util.ArrayDeque;
import java.util.Iterator;

/**
 * The exact form of the global cap for one dimension when a safe window is set: the amounts
 * admitted in the last {@code P} microseconds, oldest first, and their sum. A call fits iff the sum
 * plus its cost stays within {@code C·P}, so no window of length {@code P} — the provider's,
 * however it is aligned — ever sees more than the cap. Unlike a bucket with a lowered rate, it
 * wastes nothing when callers come back late: whatever the last {@code P} did not use is still
 * there. Not thread-safe.
 */
final class SlidingWindow {
  /** One admitted amount; the grant keeps it so that release can correct it in place. */
  static final class Entry {
    final long at;
    double amount;

    Entry(long at, double amount) {
      this.at = at;
      this.amount = amount;
    }
  }

  private final ArrayDeque<Entry> entries = new ArrayDeque<>();
  private long period;
  private double allowance;
  private double sum;

  SlidingWindow(long periodMicros, double allowance) {
    resize(periodMicros, allowance);
  }

  void resize(long periodMicros, double allowance) {
    this.period = periodMicros;
    this.allowance = allowance;
  }

  /** The most the window may hold, {@code C·P}. */
  double allowance() {
    return allowance;
  }

  /** Drops the amounts older than one period before {@code now}. */
  void expire(long now) {
    while (!entries.isEmpty() && entries.peekFirst().at <= now - period) {
      sum -= entries.pollFirst().amount;
    }
    if (entries.isEmpty()) {
      sum = 0;
    }
  }

  /** Records an admitted amount. */
  Entry add(long now, double amount) {
    Entry entry = new Entry(now, amount);
    entries.addLast(entry);
    sum += amount;
    return entry;
  }

  /** Records the whole allowance as admitted at {@code now}: the window is spent for one period. */
  void fill(long now) {
    add(now, allowance);
  }

  /** Corrects an admitted amount by {@code delta} if it is still inside the window. */
  void adjust(Entry entry, long now, double delta) {
    if (entry.at > now - period) {
      entry.amount += delta;
      sum += delta;
    }
  }

  /**
   * The earliest time at which {@code amount} fits, if nothing else is admitted: when enough of the
   * oldest amounts have left the window.
   */
  long fitsAt(long now, double amount) {
    double excess = sum + amount - allowance;
    if (excess <= NestedBuckets.EPSILON) {
      return now;
    }
    double freed = 0;
    for (Iterator<Entry> it = entries.iterator(); it.hasNext(); ) {
      Entry entry = it.next();
      freed += entry.amount;
      if (freed >= excess - NestedBuckets.EPSILON) {
        return entry.at + period;
      }
    }
    return now + period;
  }
}
