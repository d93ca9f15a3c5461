package io.backpressure.core;

import io.backpressure.core.spi.DerivedPolicy;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * The cap layer of {@link FairRule}: may this much be sent now, and if not, when? Per dimension
 * {@code d} a token bucket in its GCRA form — a theoretical arrival time {@code TAT_d}, the time at
 * which the bucket would be full again — and, with a safe window, the exact record of the last
 * provider period ({@link SlidingWindow}). It knows nothing of tenants or classes.
 *
 * <p>With rate {@code r_d} and burst {@code B_d}, the tolerance is {@code τ_d = B_d / r_d}; a cost
 * {@code c} fits at {@code t} iff {@code max(TAT_d, t) + c / r_d − τ_d ≤ t}, and taking it sets
 * {@code TAT_d ← max(TAT_d, t) + c / r_d} (the Generic Cell Rate Algorithm of ITU-T I.371, the
 * virtual-scheduling form). Taking a cost at a time {@code t} after now is a <em>firm slot</em>:
 * the bucket goes into debt now, so nothing taken later can use the capacity that refills until
 * {@code t}, and the call that comes back at {@code t} finds it held. Both are O(1) per dimension.
 *
 * <p><b>P1.</b> Whatever the order of holds, in any interval of length {@code T} the holds dated in
 * it sum to at most {@code r_d·T + B_d}: each raises {@code TAT_d} by its cost over {@code r_d} and
 * none is allowed while {@code TAT_d} is more than {@code τ_d} past its date. The safe window adds
 * that the amounts sent in any period {@code P} sum to at most {@code r_d·P}: nothing is recorded
 * in it unless it fits.
 *
 * <p><b>Firm slots and the window.</b> The window counts a call when it is sent, as the provider
 * does; until then a firm slot's cost is held in it for its time ({@link SlidingWindow#hold}), so
 * every later fit leaves it its room and the next firm slot goes after it. Callers come back late
 * (timers fire late, workers are busy). Callers all as late as each other shift the whole plan and
 * need nothing from it: a held cost leaves the window its caller's lateness after its period, just
 * as the next slot's caller comes back. What the plan must leave is how much later one caller may
 * be than the next: a held cost is planned to leave the window {@link #LATE_SPREAD_FACTOR} mean
 * deviations of the callers' lateness after its period, as TCP's retransmission timer keeps four
 * mean deviations of the round trip above its mean (<i>Computing TCP's Retransmission Timer</i>,
 * RFC 6298, with its weights). Planning for the lateness itself would space the slots a period plus
 * that lateness apart, and lose that part of the cap.
 *
 * <p><b>Firm slots in reservation mode.</b> A call's debit there is its reservation, the worst
 * case, and its release refunds what it did not use; by the time a later slot is sent, the calls
 * before it have long been reconciled. So a firm slot is held in the window at what its call is
 * expected to use (its estimate plus its class's mean shortfall, at most its debit), and counted at
 * its debit only while its call may be in flight: from its slot for the calls' mean time from send
 * to release plus {@link #FLIGHT_SPREAD_FACTOR} mean deviations of it, learned at every release as
 * the lateness is (RFC 6298's weights). The call is sent, and the window's check at send made, at
 * its debit, so P1 is unchanged; what the plan changes is that the check a call meets at its slot
 * passes when the calls before it used what they were expected to (outside reservation mode the
 * debit is the expected cost, and the plan is as before).
 *
 * <p>The essay {@code docs/admission-rule.md} explains the layer beside the other two. Not
 * thread-safe.
 */
final class CapLayer {
  /**
   * The weight of one sample in the mean of the callers' lateness and of the calls' flight time
   * (RFC 6298's α, the weight of a round trip in its mean).
   */
  static final double MEAN_WEIGHT = 0.125;

  /** The weight of one sample's deviation in the mean deviation of each (RFC 6298's β). */
  static final double SPREAD_WEIGHT = 0.25;

  /** How many mean deviations of lateness a held cost is planned to stay (RFC 6298's K). */
  static final double LATE_SPREAD_FACTOR = 4;

  /**
   * How many mean deviations past its mean a held call is planned to be in flight: two reach the
   * longest of flight times spread evenly (their mean deviation is a quarter of their range).
   */
  static final double FLIGHT_SPREAD_FACTOR = 2;

  private final int dims;
  private final double[] tat;
  private final double[] rate;
  private final double[] tolerance;
  private final @Nullable SlidingWindow[] windows;
  private double lateMean;
  private double lateSpread;

  /** The calls' mean time from send to release, at most one period, µs, and its mean deviation. */
  private double flightMean;

  private double flightSpread;

  private final boolean plansLateness;

  CapLayer(int dims) {
    this(dims, FairRule.ALL);
  }

  /** A layer with the {@code mechanisms} of {@link FairRule.Mechanism} given only. */
  CapLayer(int dims, Set<FairRule.Mechanism> mechanisms) {
    this.plansLateness = mechanisms.contains(FairRule.Mechanism.LATENESS);
    this.dims = dims;
    this.tat = new double[dims];
    this.rate = new double[dims];
    this.tolerance = new double[dims];
    this.windows = new SlidingWindow[dims];
    java.util.Arrays.fill(tat, Double.NEGATIVE_INFINITY);
  }

  /**
   * Adopts new rates and bursts at {@code now}: the debt a dimension carries (what was taken and
   * has not refilled yet, in units) is kept and refills at the new rate.
   */
  void configure(DerivedPolicy derived, long now) {
    for (int d = 0; d < dims; d++) {
      double next = derived.rate(d) / 1e6;
      if (rate[d] > 0 && tat[d] > now) {
        tat[d] = now + (tat[d] - now) * rate[d] / next;
      }
      rate[d] = next;
      tolerance[d] = derived.burst(d) / next;
      if (!derived.hasSafeWindow()) {
        windows[d] = null;
      } else if (windows[d] == null) {
        windows[d] = new SlidingWindow(derived.safeWindowMicros(), derived.allowance(d));
      } else {
        windows[d].resize(derived.safeWindowMicros(), derived.allowance(d));
      }
    }
  }

  /**
   * Empties every bucket at {@code now}; with {@code spent}, the safe window holds its allowance.
   */
  void empty(long now, boolean spent) {
    for (int d = 0; d < dims; d++) {
      tat[d] = Math.max(tat[d], now + tolerance[d]);
      SlidingWindow window = windows[d];
      if (spent && window != null) {
        window.fill(now);
      }
    }
  }

  /**
   * The earliest time at or after {@code now} at which {@code cost} fits with {@code room} left
   * over in every dimension (room: capacity the caller must leave for others; at most one burst in
   * all), if nothing else is taken meanwhile.
   */
  long fitsAt(long now, double[] cost, double[] room) {
    double at = now;
    for (int d = 0; d < dims; d++) {
      if (cost[d] <= 0) {
        continue;
      }
      double need = Math.min(cost[d] + room[d], rate[d] * tolerance[d]);
      at = Math.max(at, Math.max(tat[d], now) + need / rate[d] - tolerance[d]);
      SlidingWindow window = windows[d];
      if (window != null) {
        window.expire(now);
        at =
            Math.max(
                at,
                window.fitsAt(
                    now,
                    Math.min(need, window.allowance()),
                    (long) (LATE_SPREAD_FACTOR * lateSpread),
                    (long) (flightMean + FLIGHT_SPREAD_FACTOR * flightSpread)));
      }
    }
    return (long) Math.ceil(at);
  }

  /** Takes {@code cost} now: the buckets and the safe window (its entries in {@code entries}). */
  void take(long now, double[] cost, SlidingWindow.@Nullable Entry[] entries) {
    debit(now, cost);
    for (int d = 0; d < dims; d++) {
      SlidingWindow window = windows[d];
      entries[d] = window != null && cost[d] > 0 ? window.add(now, cost[d]) : null;
    }
  }

  /**
   * Holds {@code cost} at {@code at}, a firm slot after now: in the buckets, nothing taken later
   * can use the capacity that refills until then; in the safe window, room for {@code expected}
   * (what the call is expected to use; at most {@code cost} is held) is kept until it is {@link
   * #send sent}, and for {@code cost} while the call may be in flight (the held entries in {@code
   * entries}).
   */
  void hold(long at, double[] cost, double[] expected, SlidingWindow.@Nullable Entry[] entries) {
    debit(at, cost);
    for (int d = 0; d < dims; d++) {
      SlidingWindow window = windows[d];
      entries[d] =
          window != null && cost[d] > 0
              ? window.hold(at, Math.min(expected[d], cost[d]), cost[d])
              : null;
    }
  }

  private void debit(long at, double[] cost) {
    for (int d = 0; d < dims; d++) {
      if (cost[d] > 0) {
        tat[d] = Math.max(tat[d], at) + cost[d] / rate[d];
      }
    }
  }

  /**
   * The earliest time at or after {@code now} at which the safe window holds {@code cost}: for a
   * call back at its firm slot, whose cost the buckets already hold.
   */
  long sendableAt(long now, double[] cost) {
    long at = now;
    for (int d = 0; d < dims; d++) {
      SlidingWindow window = windows[d];
      if (window != null && cost[d] > 0) {
        window.expire(now);
        at = Math.max(at, window.sendableAt(now, Math.min(cost[d], window.allowance())));
      }
    }
    return at;
  }

  /**
   * Records the firm slot held in {@code entries} for {@code slot} as sent at {@code now}, at its
   * {@code cost} (the debit), and learns how late its caller came.
   */
  void send(long now, long slot, SlidingWindow.@Nullable Entry[] entries, double[] cost) {
    for (int d = 0; d < dims; d++) {
      SlidingWindow window = windows[d];
      SlidingWindow.Entry promised = entries[d];
      if (window != null && promised != null) {
        entries[d] = window.send(promised, now, cost[d]);
      }
    }
    double late = plansLateness ? Math.max(0, now - slot) : 0;
    lateSpread += SPREAD_WEIGHT * (Math.abs(late - lateMean) - lateSpread);
    lateMean += MEAN_WEIGHT * (late - lateMean);
  }

  /**
   * Reconciles a taken cost by {@code delta} (positive: it cost more) at the call's release: the
   * bucket's debt and the window's entry move by it. A refund never makes the bucket hold more than
   * its burst. With a safe window, learns how long the call was in flight (from its first
   * dimension's entry, at most one period).
   */
  void correct(long now, double[] delta, SlidingWindow.@Nullable Entry[] entries) {
    for (int d = 0; d < dims; d++) {
      SlidingWindow window = windows[d];
      SlidingWindow.Entry entry = entries[d];
      if (window != null && entry != null) {
        long flight = window.age(entry, now);
        flightSpread += SPREAD_WEIGHT * (Math.abs(flight - flightMean) - flightSpread);
        flightMean += MEAN_WEIGHT * (flight - flightMean);
        break;
      }
    }
    for (int d = 0; d < dims; d++) {
      if (delta[d] == 0) {
        continue;
      }
      tat[d] = Math.max(tat[d] + delta[d] / rate[d], now - tolerance[d]);
      SlidingWindow window = windows[d];
      SlidingWindow.Entry entry = entries[d];
      if (window != null && entry != null) {
        window.adjust(entry, now, delta[d]);
      }
    }
  }

  /**
   * Debits what was sent without the gate: at most one burst below empty, since a level a burst
   * below empty already holds the gate off for a burst's worth of the cap.
   */
  void charge(long now, double[] spent) {
    for (int d = 0; d < dims; d++) {
      double limit = now + 2 * tolerance[d];
      tat[d] = Math.max(Math.min(Math.max(tat[d], now) + spent[d] / rate[d], limit), tat[d]);
    }
  }

  /**
   * The provider's window of dimension {@code d} is spent until {@code until}: nothing fits sooner.
   */
  void closeUntil(int d, long until) {
    tat[d] = Math.max(tat[d], until + tolerance[d]);
  }

  /** What dimension {@code d}'s bucket holds at {@code now} (negative: the debt of firm slots). */
  double level(int d, long now) {
    return (tolerance[d] - Math.max(0, tat[d] - now)) * rate[d];
  }

  /** Dimension {@code d}'s burst, units. */
  double burst(int d) {
    return rate[d] * tolerance[d];
  }

  /** Dimension {@code d}'s rate, units per microsecond. */
  double rate(int d) {
    return rate[d];
  }

  /** Writes the layer's state under {@link FairRuleSchema}'s names. */
  void readState(java.util.Map<String, Double> out) {
    out.put("lateMean", lateMean);
    out.put("lateSpread", lateSpread);
    out.put("flightMean", flightMean);
    out.put("flightSpread", flightSpread);
    for (int d = 0; d < dims; d++) {
      out.put(FairRuleSchema.key("tat", d), tat[d]);
      out.put(FairRuleSchema.key("rate", d), rate[d]);
      out.put(FairRuleSchema.key("tolerance", d), tolerance[d]);
      SlidingWindow window = windows[d];
      if (window == null) {
        out.put(FairRuleSchema.key("sum", d), 0.0);
        out.put(FairRuleSchema.key("heldSum", d), 0.0);
        out.put(FairRuleSchema.key("heldExtra", d), 0.0);
      } else {
        window.readState(d, out);
      }
    }
  }
}
