package io.backpressure.core;

import io.backpressure.core.spi.DerivedPolicy;
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
 * <p><b>P1.</b> Whatever the order of takes, in any interval of length {@code T} the takes dated in
 * it sum to at most {@code r_d·T + B_d}: each raises {@code TAT_d} by its cost over {@code r_d} and
 * none is allowed while {@code TAT_d} is more than {@code τ_d} past its date. The safe window adds
 * that the amounts dated in any period {@code P} sum to at most {@code r_d·P}.
 *
 * <p>Not thread-safe.
 */
final class CapLayer {
  private final int dims;
  private final double[] tat;
  private final double[] rate;
  private final double[] tolerance;
  private final @Nullable SlidingWindow[] windows;

  CapLayer(int dims) {
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
        at = Math.max(at, window.fitsAt(now, Math.min(need, window.allowance())));
      }
    }
    return (long) Math.ceil(at);
  }

  /**
   * Takes {@code cost} at {@code at} (now, or a firm slot after now), recording in {@code entries}
   * the safe window's entries so that {@link #correct} can reconcile them.
   */
  void take(long at, double[] cost, SlidingWindow.@Nullable Entry[] entries) {
    for (int d = 0; d < dims; d++) {
      if (cost[d] <= 0) {
        continue;
      }
      tat[d] = Math.max(tat[d], at) + cost[d] / rate[d];
      SlidingWindow window = windows[d];
      if (window != null) {
        entries[d] = window.add(at, cost[d]);
      }
    }
  }

  /**
   * Moves a firm slot's window entries to {@code now}, when its call comes back after the slot: the
   * provider counts a call when it is sent, so the window must hold it one period from then.
   */
  void redate(long now, double[] cost, SlidingWindow.@Nullable Entry[] entries) {
    for (int d = 0; d < dims; d++) {
      SlidingWindow window = windows[d];
      SlidingWindow.Entry entry = entries[d];
      if (window != null && entry != null) {
        entries[d] = window.redate(entry, now);
      }
    }
  }

  /**
   * Reconciles a taken cost by {@code delta} (positive: it cost more): the bucket's debt and the
   * window's entry move by it. A refund never makes the bucket hold more than its burst.
   */
  void correct(long now, double[] delta, SlidingWindow.@Nullable Entry[] entries) {
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
}
