package io.backpressure.core;

import java.util.ArrayDeque;
import java.util.Iterator;
import org.jspecify.annotations.Nullable;

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
 * it. A held amount whose caller is a whole period late is dropped.
 *
 * <p><b>Held amounts in flight.</b> A held amount is what its call is expected to use; the call is
 * sent at its <em>debit</em> (in reservation mode the worst case), which counts in the window until
 * the call's release corrects it. So a fit counts a held amount at its debit until its call's
 * expected release (its slot plus the calls' mean time from send to release) and at its expected
 * amount after, until it leaves: the time planned is one at which the send check ({@link
 * #sendableAt}) of the call planned finds the room the plan counted on, if the calls before it are
 * released and use what they are expected to. Not thread-safe.
 */
final class SlidingWindow {
  /**
   * One admitted amount; the grant keeps it so that release can correct it in place. A held entry
   * also knows the debit its call will be sent at ({@code debit}, at least {@code amount}); a sent
   * one is sent at its amount.
   */
  static final class Entry {
    final long at;
    double amount;
    final double debit;

    Entry(long at, double amount, double debit) {
      this.at = at;
      this.amount = amount;
      this.debit = debit;
    }
  }

  private final ArrayDeque<Entry> entries = new ArrayDeque<>();

  /** The held amounts, about in time order (the cap layer promises them in its buckets' order). */
  private final ArrayDeque<Entry> held = new ArrayDeque<>();

  private long period;
  private double allowance;
  private double sum;
  private double heldSum;

  /** What the held calls' debits add to their held amounts. */
  private double heldExtra;

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
      Entry dropped = held.pollFirst();
      heldSum -= dropped.amount;
      heldExtra -= dropped.debit - dropped.amount;
    }
    if (held.isEmpty()) {
      heldSum = 0;
      heldExtra = 0;
    }
  }

  /**
   * Holds {@code amount}, what a call to be sent at {@code at} (after now) is expected to use, for
   * the call whose debit is {@code debit} (at least {@code amount}).
   */
  Entry hold(long at, double amount, double debit) {
    Entry entry = new Entry(at, amount, debit);
    held.addLast(entry);
    heldSum += amount;
    heldExtra += debit - amount;
    return entry;
  }

  /**
   * Records a held amount as sent at {@code now}, at {@code amount} (the call's debit, which its
   * release corrects; if the held amount was dropped meanwhile, it is recorded all the same).
   */
  Entry send(Entry promised, long now, double amount) {
    if (held.peekFirst() == promised ? held.pollFirst() != null : held.remove(promised)) {
      heldSum = held.isEmpty() ? 0 : heldSum - promised.amount;
      heldExtra = held.isEmpty() ? 0 : heldExtra - (promised.debit - promised.amount);
    }
    return add(now, amount);
  }

  /** Records an admitted amount. */
  Entry add(long now, double amount) {
    Entry entry = new Entry(now, amount, amount);
    entries.addLast(entry);
    sum += amount;
    return entry;
  }

  /** Records the whole allowance as admitted at {@code now}: the window is spent for one period. */
  void fill(long now) {
    add(now, allowance);
  }

  /**
   * How long ago {@code entry} was sent, at most one period (an amount counts in the window for one
   * period only), µs.
   */
  long age(Entry entry, long now) {
    return Math.min(now - entry.at, period);
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
    return fitsAt(now, amount, 0, 0);
  }

  /**
   * The earliest time at which {@code amount} fits beside the sent and the held amounts, if nothing
   * else is admitted: when enough of them have left the window. A held amount is counted as if its
   * call were sent {@code lateness} after its slot (its caller may come that late): at its debit
   * until {@code flight} later (the calls' mean time from send to release, µs), at its expected
   * amount until one period after its send. The times are taken in order, the held ones no earlier
   * than the held before them.
   */
  long fitsAt(long now, double amount, long lateness, long flight) {
    double excess = sum + heldSum + heldExtra + amount - allowance;
    if (excess <= NestedBuckets.EPSILON) {
      return now;
    }
    Iterator<Entry> sent = entries.iterator();
    Iterator<Entry> leaving = held.iterator();
    Iterator<Entry> landing = held.iterator();
    @Nullable Entry next = sent.hasNext() ? sent.next() : null;
    @Nullable Entry left = leaving.hasNext() ? leaving.next() : null;
    // Without a held debit above its amount, no held amount shrinks: nothing to walk for.
    @Nullable Entry back =
        heldExtra > NestedBuckets.EPSILON && landing.hasNext() ? landing.next() : null;
    long leaveAt = now;
    long backAt = Long.MIN_VALUE;
    double freed = 0;
    while (true) {
      Entry out = next != null ? next : left;
      long outAt = Long.MAX_VALUE;
      if (out != null) {
        outAt = out == next ? out.at + period : Math.max(leaveAt, out.at + period + lateness);
      }
      long t;
      if (back != null && Math.max(backAt, back.at + flight + lateness) < outAt) {
        t = backAt = Math.max(backAt, back.at + flight + lateness);
        freed += back.debit - back.amount;
        back = landing.hasNext() ? landing.next() : null;
      } else if (out != null && out == next) {
        t = outAt;
        freed += out.amount;
        next = sent.hasNext() ? sent.next() : null;
      } else if (out != null) {
        t = leaveAt = outAt;
        freed += out.amount;
        left = leaving.hasNext() ? leaving.next() : null;
      } else {
        return Math.max(leaveAt, now + period);
      }
      if (freed >= excess - NestedBuckets.EPSILON) {
        return Math.max(t, now);
      }
    }
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
    out.put(FairRuleSchema.key("heldExtra", d), heldExtra);
    int h = 0;
    for (Entry entry : held) {
      out.put(FairRuleSchema.heldKey(d, h, "at"), (double) entry.at);
      out.put(FairRuleSchema.heldKey(d, h, "amount"), entry.amount);
      out.put(FairRuleSchema.heldKey(d, h, "debit"), entry.debit);
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
