package io.backpressure.eval.measure;

import io.backpressure.eval.workload.Fault;
import io.backpressure.eval.workload.Workload;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What a run's faults did at the provider, from the requests that reached it (eval/README.md,
 * faults): the most requests in any window of one upstream period that lies wholly outside every
 * fault's own duration, the same after the gate's shared state was lost, and per fault how long
 * after its end the provider again answered 90 % of the cap.
 *
 * <p>Windows slide: each starts at a request's arrival, so the maxima do not depend on how windows
 * are aligned. A fault's own duration ({@link Span}) runs from its first step to its closing step
 * as they took effect (SIGCONT sent, the restarted server answering, the replacement worker
 * polling, the provider's switch off), not as scheduled; a fault whose closing step never took
 * effect lasts to the run's end. A slow provider's fault lasts until the last answer it slowed was
 * sent (calls it admitted before its switch went off keep their latency). An instant fault ({@code
 * redis-flush}, {@code worker-kill} without {@code +D}) excludes no window. "After state loss" is
 * every such window that holds a moment of the first period after a loss (a FLUSHALL, or the
 * restart of a killed redis-server): the windows whose admissions the lost state could have
 * bounded, or that the restarted state decides from nothing. A window that starts a period or more
 * after the loss holds only admissions the restarted state decided and saw; it is the steady state
 * again and counts towards the bound outside faults like any other.
 *
 * <p>Recovery of a fault ending at {@code E}: the time from {@code E} until the provider has
 * answered {@code ⌈0.9 · R · period⌉} requests with 200, all sent after {@code E}, within one
 * period — the gate admits at least 90 % of {@code R} again and the provider takes them. {@code R}
 * is the cap, or the rate of 200s the same run reached outside its faults' own durations (from
 * {@code warmup_s} to the end) when that is lower: on a machine too loaded for the stack to reach
 * the cap at all, recovery is measured against what it reached without faults, not against a rate
 * nothing could reach. When recovery never happens, the time left until the run's end, or until the
 * next fault starts when one does first (a window completed during another fault would count that
 * fault's duration too).
 *
 * <p>How far to trust a recovery time: {@code belowRecoveredShare} is the share of the windows of
 * one period outside every fault (from {@code warmup_s} on, starting every tenth of a period) that
 * hold fewer 200s than a recovered gate needs. It measures the stack without faults against the
 * same mark: on a machine loaded enough that the stack stays below the cap, its rate of 200s swings
 * from window to window, and a recovery time then includes the wait for a window at the upper part
 * of those swings (the evaluation README, faults, has the measured numbers).
 */
public final class FaultWindows {
  /** The share of the cap, per period, a recovered gate admits again. */
  static final double RECOVERED_SHARE = 0.9;

  /** The resolution at which time inside faults is left out of the rate {@code R}. */
  private static final long RATE_STEP_NANOS = 1_000_000L;

  private FaultWindows() {}

  /**
   * One request at the provider, in nanoseconds since the run's origin.
   *
   * @param arrivalNanos when the provider received it
   * @param ok whether it answered 200
   * @param finishNanos when the provider answered it
   */
  public record Arrival(long arrivalNanos, boolean ok, long finishNanos) {

    /** A request answered the moment it arrived. */
    Arrival(long arrivalNanos, boolean ok) {
      this(arrivalNanos, ok, arrivalNanos);
    }
  }

  /**
   * The requests dimension of a run with faults.
   *
   * @param maxOutsideFaults the most requests in a window wholly outside every fault's duration
   * @param maxAfterStateLoss the same over the windows that hold a moment of the first period after
   *     a state loss; NaN when no fault lost the state
   * @param recoveryS per fault (as written on the command line): seconds from its end until the
   *     provider answered 90 % of {@code recoveryRateRps} within one period again; NaN for a fault
   *     that never ended
   * @param recoveryRateRps {@code R}: the cap, or the run's rate of 200s outside its faults when
   *     lower, in requests per second
   * @param belowRecoveredShare the share of windows outside the faults that hold fewer 200s than
   *     recovery needs (see the class comment), in [0, 1]; NaN when no such window exists
   */
  public record Result(
      double maxOutsideFaults,
      double maxAfterStateLoss,
      Map<String, Double> recoveryS,
      double recoveryRateRps,
      double belowRecoveredShare) {}

  /**
   * One step of a fault that took effect ({@code FaultInjector}).
   *
   * @param closing whether it ended its fault
   * @param nanos when it had taken effect (the signal sent, the server or worker ready), since the
   *     run's origin
   */
  public record Step(Fault fault, boolean closing, long nanos) {}

  /**
   * One fault as it happened.
   *
   * @param fault as written on the command line
   * @param startNanos its first step, since the run's origin
   * @param endNanos its closing step ({@code startNanos} for an instant fault); -1 when it never
   *     ended
   * @param stateLostNanos when it lost the gate's shared state; -1 when it did not
   */
  public record Span(String fault, long startNanos, long endNanos, long stateLostNanos) {

    /** {@code fault} exactly as scheduled. */
    static Span scheduled(Fault fault) {
      double lost = fault.stateLostAtS();
      return new Span(
          fault.toString(),
          Workload.nanos(fault.atS()),
          Workload.nanos(fault.endS()),
          Double.isNaN(lost) ? -1 : Workload.nanos(lost));
    }

    /**
     * {@code fault} as its {@code steps} took effect; a step that never did falls back to the
     * schedule for its start, and to "never ended" for its end.
     */
    public static Span of(Fault fault, List<Step> steps) {
      long start =
          steps.stream()
              .filter(s -> s.fault().equals(fault) && !s.closing())
              .mapToLong(Step::nanos)
              .findFirst()
              .orElse(Workload.nanos(fault.atS()));
      boolean closes = fault.durationS() > 0;
      long end =
          !closes
              ? start
              : steps.stream()
                  .filter(s -> s.fault().equals(fault) && s.closing())
                  .mapToLong(Step::nanos)
                  .findFirst()
                  .orElse(-1);
      long lost =
          switch (fault.kind()) {
            case "redis-flush" -> start;
            case "redis-kill" -> end;
            default -> -1;
          };
      return new Span(fault.toString(), start, end, lost);
    }
  }

  /**
   * Measures each of {@code faults} in the requests that reached the provider.
   *
   * @param faults the run's faults, each as the span it took effect over
   * @param arrivals every request that reached the provider, any order
   * @param capPerPeriod the requests cap of one period (the workload's own share of it)
   * @param periodNanos the provider's period
   * @param warmupNanos where the rate outside the faults is counted from
   * @param endNanos the run's end
   */
  public static Result of(
      List<Span> faults,
      List<Arrival> arrivals,
      double capPerPeriod,
      long periodNanos,
      long warmupNanos,
      long endNanos) {
    long[] all = arrivals.stream().mapToLong(Arrival::arrivalNanos).sorted().toArray();
    long[] ok =
        arrivals.stream().filter(Arrival::ok).mapToLong(Arrival::arrivalNanos).sorted().toArray();
    faults = faults.stream().map(f -> untilTheLastSlowAnswer(f, arrivals)).toList();
    List<Span> closed =
        faults.stream()
            .map(
                f ->
                    f.endNanos() >= 0
                        ? f
                        : new Span(f.fault(), f.startNanos(), Long.MAX_VALUE, f.stateLostNanos()))
            .toList();
    double outside = maxWindow(all, periodNanos, closed, Long.MIN_VALUE, Long.MAX_VALUE);
    double afterLoss =
        faults.stream()
            .mapToLong(Span::stateLostNanos)
            .filter(t -> t >= 0)
            .mapToDouble(
                lost ->
                    maxWindow(all, periodNanos, closed, lost - periodNanos + 1, lost + periodNanos))
            .max()
            .orElse(Double.NaN);
    double perPeriod =
        Math.min(capPerPeriod, rateOutsideFaults(ok, closed, warmupNanos, endNanos) * periodNanos);
    int needed = Math.max(1, (int) Math.ceil(RECOVERED_SHARE * perPeriod - 1e-9));
    Map<String, Double> recovery = new LinkedHashMap<>();
    for (Span f : faults) {
      recovery.put(
          f.fault(),
          f.endNanos() < 0
              ? Double.NaN
              : recoveryNanos(ok, f.endNanos(), needed, periodNanos, nextStart(faults, f, endNanos))
                  / 1e9);
    }
    return new Result(
        outside,
        afterLoss,
        recovery,
        perPeriod * 1e9 / periodNanos,
        belowShare(ok, closed, needed, periodNanos, warmupNanos, endNanos));
  }

  /**
   * The share of windows {@code [t, t + period)}, {@code t} from {@code from} every tenth of a
   * period, that end by {@code to}, overlap no fault and hold fewer than {@code needed} 200s.
   */
  static double belowShare(
      long[] okSorted, List<Span> faults, int needed, long period, long from, long to) {
    int windows = 0;
    int below = 0;
    for (long t = from; t + period <= to; t += period / 10) {
      if (overlapsAFault(t, t + period, faults)) {
        continue;
      }
      windows++;
      if (countIn(okSorted, t, t + period) < needed) {
        below++;
      }
    }
    return windows == 0 ? Double.NaN : below / (double) windows;
  }

  private static int countIn(long[] sorted, long from, long to) {
    return insertionPoint(sorted, to) - insertionPoint(sorted, from);
  }

  /** The index of the first element at or after {@code t}. */
  private static int insertionPoint(long[] sorted, long t) {
    int i = Arrays.binarySearch(sorted, t);
    return i >= 0 ? firstOf(sorted, i) : -i - 1;
  }

  /**
   * The most arrivals within {@code [s, s + period)} over window starts {@code s} at an arrival in
   * {@code [from, to)}, skipping windows that overlap a fault's own duration.
   */
  static double maxWindow(long[] sorted, long period, List<Span> faults, long from, long to) {
    int best = 0;
    int head = 0;
    for (int tail = 0; tail < sorted.length; tail++) {
      long start = sorted[tail];
      head = Math.max(head, tail);
      while (head < sorted.length && sorted[head] < start + period) {
        head++;
      }
      if (start >= from && start < to && !overlapsAFault(start, start + period, faults)) {
        best = Math.max(best, head - tail);
      }
    }
    return best;
  }

  /**
   * A {@code provider-slow} span ends when the last request that arrived during it was answered.
   */
  private static Span untilTheLastSlowAnswer(Span f, List<Arrival> arrivals) {
    if (!f.fault().startsWith("provider-slow@") || f.endNanos() < 0) {
      return f;
    }
    long last =
        arrivals.stream()
            .filter(a -> a.arrivalNanos() >= f.startNanos() && a.arrivalNanos() < f.endNanos())
            .mapToLong(Arrival::finishNanos)
            .max()
            .orElse(f.endNanos());
    return new Span(f.fault(), f.startNanos(), Math.max(f.endNanos(), last), f.stateLostNanos());
  }

  /**
   * 200s per nanosecond over [{@code from}, {@code to}) outside every fault's own duration; 0 if
   * none is left.
   */
  private static double rateOutsideFaults(long[] okSorted, List<Span> faults, long from, long to) {
    long count =
        Arrays.stream(okSorted).filter(t -> t >= from && t < to && !inAFault(t, faults)).count();
    long length = to - from;
    for (long t = from; t < to; t += RATE_STEP_NANOS) {
      if (inAFault(t, faults)) {
        length -= Math.min(RATE_STEP_NANOS, to - t);
      }
    }
    return length <= 0 ? 0 : count / (double) length;
  }

  private static boolean inAFault(long t, List<Span> faults) {
    return faults.stream().anyMatch(f -> t >= f.startNanos() && t < f.endNanos());
  }

  private static boolean overlapsAFault(long start, long end, List<Span> faults) {
    for (Span f : faults) {
      if (f.endNanos() > f.startNanos() && start < f.endNanos() && end > f.startNanos()) {
        return true;
      }
    }
    return false;
  }

  /**
   * Where the recovery from {@code f} stops being observable: the start of the next fault that
   * starts after {@code f}'s end, or the run's end.
   */
  private static long nextStart(List<Span> faults, Span f, long runEnd) {
    return faults.stream()
        .mapToLong(Span::startNanos)
        .filter(start -> start > f.endNanos())
        .min()
        .orElse(runEnd);
  }

  /**
   * See the class comment; {@code okSorted} holds the 200s' arrivals. Only 200s that arrived before
   * {@code until} count (the run's end, or the next fault's start: a window of 200s completed
   * during another fault measures that fault too); when none do, the time until {@code until}.
   */
  static long recoveryNanos(long[] okSorted, long faultEnd, int needed, long period, long until) {
    int first = Arrays.binarySearch(okSorted, faultEnd);
    first = first >= 0 ? firstOf(okSorted, first) : -first - 1;
    for (int last = first + needed - 1; last < okSorted.length && okSorted[last] < until; last++) {
      if (okSorted[last] - okSorted[last - needed + 1] < period) {
        return okSorted[last] - faultEnd;
      }
    }
    return Math.max(0, until - faultEnd);
  }

  private static int firstOf(long[] sorted, int index) {
    while (index > 0 && sorted[index - 1] == sorted[index]) {
      index--;
    }
    return index;
  }
}
