package io.backpressure.core;

import io.backpressure.core.testing.WindowPeak;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.PriorityQueue;

/**
 * Drives a gate in virtual time with callers that behave as the Temporal integration does: a
 * deferred caller sleeps Δ and retries with its booking; an admitted caller holds the call for its
 * service time and releases the grant with the true cost. Closed-loop callers then start their next
 * call; open-loop arrivals (a Poisson process) each make one call. A caller with a deadline passes
 * what is left of it as {@code maxWait} and gives up when answered {@code Expired}.
 */
final class Traffic {
  /** One admitted call: when, by whom, what was debited and what it really cost. */
  record Admitted(long nanos, String tenant, String priority, Cost debited, Cost actual) {}

  /**
   * One call that ended: admitted after {@code waitNanos} from its first attempt and {@code
   * deferrals} deferrals, or expired ({@code expired}).
   */
  record Outcome(
      long firstNanos,
      String tenant,
      String priority,
      long waitNanos,
      int deferrals,
      boolean expired,
      long deadlineNanos) {}

  private final Gate gate;
  private final ManualClock clock;
  private final PriorityQueue<Event> events = new PriorityQueue<>();
  private final List<Admitted> admitted = new ArrayList<>();
  private final List<Outcome> outcomes = new ArrayList<>();
  private long sequence;
  private long deferrals;

  /** How late a deferred caller comes back after its Δ (s), as a timer on a busy worker does. */
  private double wakeUpLagSeconds;

  Traffic(Gate gate, ManualClock clock) {
    this.gate = gate;
    this.clock = clock;
  }

  /**
   * Adds {@code callers} callers for one queue, each starting at {@code startSeconds} and calling
   * back to back with {@code serviceSeconds} per call (0 = always waiting at the gate).
   */
  Traffic callers(
      String tenant,
      String priority,
      Cost estimate,
      Cost actual,
      int callers,
      double serviceSeconds,
      double startSeconds,
      double stopSeconds) {
    for (int i = 0; i < callers; i++) {
      Caller caller = new Caller(tenant, priority, estimate, actual, serviceSeconds, stopSeconds);
      schedule(startSeconds + i * 1e-6, caller, Kind.ATTEMPT, null);
    }
    return this;
  }

  /**
   * Closed-loop callers as above that finish at {@code stopSeconds}: they start no new call after
   * it, but a call already waiting at the gate still comes back for its turn and is released.
   */
  Traffic finishingCallers(
      String tenant,
      String priority,
      Cost cost,
      int callers,
      double serviceSeconds,
      double stopSeconds) {
    for (int i = 0; i < callers; i++) {
      Caller caller = new Caller(tenant, priority, cost, cost, serviceSeconds, stopSeconds);
      caller.finishesWaitingCall = true;
      schedule(i * 1e-6, caller, Kind.ATTEMPT, null);
    }
    return this;
  }

  Traffic callers(String tenant, String priority, Cost cost, int callers) {
    return callers(tenant, priority, cost, cost, callers, 0, 0, Double.POSITIVE_INFINITY);
  }

  /** Closed-loop callers as above whose every call waits at most {@code maxWait} for its turn. */
  Traffic callers(
      String tenant,
      String priority,
      Cost cost,
      int callers,
      double serviceSeconds,
      Duration maxWait) {
    for (int i = 0; i < callers; i++) {
      Caller caller =
          new Caller(tenant, priority, cost, cost, serviceSeconds, Double.POSITIVE_INFINITY);
      caller.maxWait = maxWait;
      schedule(i * 1e-6, caller, Kind.ATTEMPT, null);
    }
    return this;
  }

  /**
   * Open-loop arrivals of one queue: calls arrive as a Poisson process of {@code perSecond} from
   * {@code startSeconds} to {@code stopSeconds}, whatever the gate answers; each makes one call
   * that takes {@code serviceSeconds} once admitted and waits at most {@code maxWait} (null: no
   * limit).
   */
  Traffic openLoop(
      String tenant,
      String priority,
      Cost cost,
      double perSecond,
      double serviceSeconds,
      double startSeconds,
      double stopSeconds,
      Duration maxWait,
      long seed) {
    java.util.Random random = new java.util.Random(seed);
    double t = startSeconds;
    while (true) {
      t += -Math.log(1 - random.nextDouble()) / perSecond;
      if (t >= stopSeconds) {
        return this;
      }
      Caller caller =
          new Caller(tenant, priority, cost, cost, serviceSeconds, Double.POSITIVE_INFINITY);
      caller.oneShot = true;
      caller.maxWait = maxWait;
      schedule(t, caller, Kind.ATTEMPT, null);
    }
  }

  /** Makes every deferred caller come back {@code seconds} after its Δ instead of exactly at it. */
  Traffic wakeUpLag(double seconds) {
    this.wakeUpLagSeconds = seconds;
    return this;
  }

  /** Runs until {@code untilSeconds} of virtual time; returns the admissions so far. */
  List<Admitted> runUntil(double untilSeconds) {
    long until = (long) (untilSeconds * 1e9);
    while (!events.isEmpty() && events.peek().nanos <= until) {
      Event e = events.poll();
      if (e.nanos > clock.nanoTime()) {
        clock.set(e.nanos);
      }
      Caller c = e.caller;
      if (e.kind == Kind.RELEASE) {
        gate.release(e.grant, c.actual);
        continue;
      }
      if (e.nanos / 1e9 >= c.stopSeconds && !(c.finishesWaitingCall && c.booking != null)) {
        continue;
      }
      if (c.firstNanos < 0) {
        c.firstNanos = e.nanos;
        c.deferred = 0;
      }
      AdmissionRequest request = AdmissionRequest.of(c.tenant, c.priority, c.estimate);
      if (c.booking != null) {
        request = request.withBooking(c.booking);
      }
      long deadline = c.maxWait == null ? Long.MAX_VALUE : c.firstNanos + c.maxWait.toNanos();
      if (c.maxWait != null) {
        request = request.withMaxWait(Duration.ofNanos(Math.max(0, deadline - e.nanos)));
      }
      Admission answer = gate.admit(request);
      if (answer instanceof Admission.Admitted a) {
        c.booking = null;
        admitted.add(
            new Admitted(clock.nanoTime(), c.tenant, c.priority, a.grant().debited(), c.actual));
        outcomes.add(
            new Outcome(
                c.firstNanos,
                c.tenant,
                c.priority,
                e.nanos - c.firstNanos,
                c.deferred,
                false,
                deadline));
        c.firstNanos = -1;
        schedule(e.nanos / 1e9 + c.serviceSeconds, c, Kind.RELEASE, a.grant());
        if (!c.oneShot) {
          schedule(e.nanos / 1e9 + c.serviceSeconds + 1e-9, c, Kind.ATTEMPT, null);
        }
      } else if (answer instanceof Admission.Deferred d) {
        deferrals++;
        c.deferred++;
        c.booking = d.booking();
        // In whole nanoseconds: the sum in double seconds could land a nanosecond past Δ, and a
        // call that waits exactly its budget would then be counted as answered after its deadline.
        scheduleAt(
            e.nanos + d.retryAfter().toNanos() + Math.round(wakeUpLagSeconds * 1e9),
            c,
            Kind.ATTEMPT,
            null);
      } else if (answer instanceof Admission.Expired) {
        c.booking = null;
        outcomes.add(
            new Outcome(
                c.firstNanos,
                c.tenant,
                c.priority,
                e.nanos - c.firstNanos,
                c.deferred,
                true,
                deadline));
        c.firstNanos = -1;
        if (!c.oneShot) {
          schedule(e.nanos / 1e9 + 1e-3, c, Kind.ATTEMPT, null);
        }
      } else {
        throw new AssertionError("unexpected " + answer);
      }
    }
    if (clock.nanoTime() < until) {
      clock.set(until);
    }
    return admitted;
  }

  List<Admitted> admitted() {
    return admitted;
  }

  long deferrals() {
    return deferrals;
  }

  /** Every call that ended (admitted or expired), in the order they ended. */
  List<Outcome> outcomes() {
    return outcomes;
  }

  private void schedule(double seconds, Caller caller, Kind kind, Grant grant) {
    scheduleAt((long) Math.ceil(seconds * 1e9), caller, kind, grant);
  }

  private void scheduleAt(long nanos, Caller caller, Kind kind, Grant grant) {
    events.add(new Event(nanos, sequence++, caller, kind, grant));
  }

  private enum Kind {
    ATTEMPT,
    RELEASE
  }

  private record Event(long nanos, long seq, Caller caller, Kind kind, Grant grant)
      implements Comparable<Event> {
    @Override
    public int compareTo(Event o) {
      int byTime = Long.compare(nanos, o.nanos);
      return byTime != 0 ? byTime : Long.compare(seq, o.seq);
    }
  }

  private static final class Caller {
    final String tenant;
    final String priority;
    final Cost estimate;
    final Cost actual;
    final double serviceSeconds;
    final double stopSeconds;
    String booking;
    boolean oneShot;
    boolean finishesWaitingCall;
    Duration maxWait;
    long firstNanos = -1;
    int deferred;

    Caller(
        String tenant,
        String priority,
        Cost estimate,
        Cost actual,
        double serviceSeconds,
        double stopSeconds) {
      this.tenant = tenant;
      this.priority = priority;
      this.estimate = estimate;
      this.actual = actual;
      this.serviceSeconds = serviceSeconds;
      this.stopSeconds = stopSeconds;
    }
  }

  /** Sum of {@code dimension} over admissions in [from, to) seconds, by a key. */
  static double sum(
      List<Admitted> log,
      double from,
      double to,
      String dimension,
      java.util.function.Predicate<Admitted> which,
      boolean actual) {
    double total = 0;
    for (Admitted a : log) {
      double t = a.nanos() / 1e9;
      if (t >= from && t < to && which.test(a)) {
        total += (actual ? a.actual() : a.debited()).amount(dimension);
      }
    }
    return total;
  }

  /** The most admitted (debited) of {@code dimension} in any window of {@code window} length. */
  static double maxInAnyWindow(List<Admitted> log, String dimension, Duration window) {
    return WindowPeak.max(
        log, Admitted::nanos, a -> a.debited().amount(dimension), window.toNanos());
  }
}
