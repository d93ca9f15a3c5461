package io.backpressure.core;

import java.util.ArrayDeque;
import java.util.Iterator;

/**
 * The exact form of the global cap for one dimension when a safe window is set: the amounts
 * admitted in the last {@code P} microseconds, oldest first, and their sum. A call fits iff the sum
 * plus its cost stays within {@code C·P}, so no window of length {@code P} — the provider's,
 * however it is aligned — ever sees more than the cap. Unlike a bucket with a lowered rate, it
 * wastes nothing when callers come back late: whatever the last {@code P} did not use is still
 * there.
 *
 * <p><b>Held amounts.</b> An amount promised for a later time (a firm slot of {@link CapLayer}) is
 * <em>held</em>: it is not in the window yet, since the provider counts it when it is sent, but
 * every fit counts it, as if sent at its time and left one period (plus the callers' measured
 * lateness) later. So nothing admitted meanwhile takes its room, and the next promise goes after
 * it. A held amount whose caller is a whole period late is dropped. Not thread-safe.
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

  /** The held amounts, about in time order (the cap layer promises them in its buckets' order). */
  private final ArrayDeque<Entry> held = new ArrayDeque<>();

  private long period;
  private double allowance;
  private double sum;
  private double heldSum;

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

  /**
   * Drops the amounts older than one period before {@code now}, and the held amounts a period
   * overdue.
   */
  void expire(long now) {
    while (!entries.isEmpty() && entries.peekFirst().at <= now - period) {
      sum -= entries.pollFirst().amount;
    }
    if (entries.isEmpty()) {
      sum = 0;
    }
    while (!held.isEmpty() && held.peekFirst().at <= now - period) {
      heldSum -= held.pollFirst().amount;
    }
    if (held.isEmpty()) {
      heldSum = 0;
    }
  }

  /** Holds {@code amount} for a call to be sent at {@code at}, after now. */
  Entry hold(long at, double amount) {
    Entry entry = new Entry(at, amount);
    held.addLast(entry);
    heldSum += amount;
    return entry;
  }

  /**
   * Records a held amount as sent at {@code now} (if it was dropped meanwhile, it is recorded all
   * the same): the entry release corrects.
   */
  Entry send(Entry promised, long now) {
    if (held.peekFirst() == promised ? held.pollFirst() != null : held.remove(promised)) {
      heldSum = held.isEmpty() ? 0 : heldSum - promised.amount;
    }
    return add(now, promised.amount);
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
    return fitsAt(now, amount, 0);
  }

  /**
   * The earliest time at which {@code amount} fits beside the sent and the held amounts, if nothing
   * else is admitted: when enough of the oldest have left the window, a held amount {@code
   * lateness} after its period since its caller may send it that late.
   */
  long fitsAt(long now, double amount, long lateness) {
    double excess = sum + heldSum + amount - allowance;
    long sent = leaves(now, excess);
    if (sent != Long.MIN_VALUE || held.isEmpty()) {
      return sent != Long.MIN_VALUE ? sent : now + period;
    }
    double freed = sum;
    long at = now;
    for (Iterator<Entry> it = held.iterator(); it.hasNext(); ) {
      Entry entry = it.next();
      freed += entry.amount;
      at = Math.max(at, entry.at + period + lateness);
      if (freed >= excess - NestedBuckets.EPSILON) {
        return at;
      }
    }
    return Math.max(at, now + period);
  }

  /**
   * The earliest time at which a held {@code amount} may be sent: when the sent amounts leave it
   * room (the other held amounts were promised with its room counted).
   */
  long sendableAt(long now, double amount) {
    long at = leaves(now, sum + amount - allowance);
    return at != Long.MIN_VALUE ? at : now + period;
  }

  /**
   * When the sent amounts have freed {@code excess}: {@code now} if nothing needs to leave, the
   * time the last of the oldest amounts needed leaves, or {@link Long#MIN_VALUE} when all of them
   * do not free it.
   */
  private long leaves(long now, double excess) {
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
    return Long.MIN_VALUE;
  }

  /** Writes the window of dimension {@code d} under {@link FairRuleSchema}'s names. */
  void readState(int d, java.util.Map<String, Double> out) {
    out.put(FairRuleSchema.key("sum", d), sum);
    out.put(FairRuleSchema.key("heldSum", d), heldSum);
    int h = 0;
    for (Entry entry : held) {
      out.put(FairRuleSchema.heldKey(d, h, "at"), (double) entry.at);
      out.put(FairRuleSchema.heldKey(d, h, "amount"), entry.amount);
      h++;
    }
    int i = 0;
    for (Entry entry : entries) {
      out.put(FairRuleSchema.entryKey(d, i, "at"), (double) entry.at);
      out.put(FairRuleSchema.entryKey(d, i, "amount"), entry.amount);
      i++;
    }
  }
}
