package io.backpressure.core;

import io.backpressure.core.spi.DerivedPolicy;
import java.util.Collections;
import java.util.EnumSet;
import java.util.Locale;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * The admission rule as three parts: the {@link CapLayer} says whether a cost may be sent now, the
 * {@link OrderLayer} whose turn it is, and this class, the defer protocol, turns the two into an
 * answer.
 *
 * <p><b>The protocol.</b> A call's first attempt pays its queue's tag; once its queue's turn has
 * come it pays its class's tag, which places it in its class's entitled share of the cap. Its
 * booking keeps both, so a deferred call comes back to the same place and never pays twice.
 *
 * <ul>
 *   <li><b>Its turn</b> (both tags have come): admitted if the cap layer holds its cost now; else
 *       it is given a <em>firm slot</em>, the cap layer's next free time for its cost, held at
 *       once, and deferred exactly to it. A call back at its firm slot is admitted without asking
 *       again, once the safe window holds it (a caller back later than its slot may find the
 *       window's room taken in the meantime, and waits for it once more).
 *   <li><b>Its queue's turn, not its class's</b> (the class is past its entitled share): admitted
 *       if the cap holds its cost and still leaves room for the calls of others — what the calls
 *       served at their turn use in {@link #ISOLATION_MICROS}, and one average call of every other
 *       active class within its share — so it borrows only what the others leave. Else, when the
 *       cap is booked past its class's turn (its next free time for the cost is no sooner), it is
 *       given its firm slot at once: waiting for the class's turn would find the cap no emptier,
 *       and a class can be booked this way only as far ahead as the cap is, which is its share of
 *       the booked time (eligibility against the cap's booked time instead of now). Else deferred
 *       to its class's turn.
 *   <li><b>Ahead of its queue's turn</b>: admitted only when the cap would otherwise fill up (it
 *       holds the cost and a burst less one more such call): capacity nobody asks for is not
 *       wasted, and the queue is then counted as if the call had started now (no debt for using
 *       it). Else deferred to its queue's turn — at its first attempt, to when the cap fills up if
 *       that comes first (once: a later wake-up would find the capacity taken by as many callers as
 *       before, a round trip each).
 *   <li><b>Deadline</b>: when the wait passes the call's {@code maxWait}, the answer is {@code
 *       Expired} at once, and what the call paid on its queue's and its class's tags is taken back:
 *       it was never served, so it leaves its queue no debt (a queue whose calls keep expiring
 *       would otherwise pay for calls that never ran, and starve).
 * </ul>
 *
 * <p>So an answered call is deferred at most twice before its queue's turn (once to when the cap
 * fills up, once to the turn), once for its class's and once for its firm slot. The cost a call is
 * counted at is its estimate plus its class's mean shortfall (what released calls cost beyond their
 * estimates, an exponential average), or in reservation mode its reservation; release reconciles
 * the cap layer and the tags with the true cost.
 *
 * <p>Strict mode is the same layers with the class order strict: a class's turn is never while a
 * higher class is active, and room is left for every higher active class.
 *
 * <p>The rule's design, the source of each mechanism, the proof sketches of its properties and a
 * worked example are in the essay {@code docs/admission-rule.md}.
 *
 * <p>Not thread-safe: used under its gate's lock.
 */
final class FairRule implements AdmissionRule {
  /**
   * The mechanisms of the order layer, the defer protocol and the cap layer that the evaluation
   * switches off one at a time ({@code bp-fq-no-NAME}, NAME its {@link #label}) to measure what
   * each buys; the rule runs with all of them ({@link #ALL}).
   */
  enum Mechanism {
    /** A call waits for its queue's start tag (eligibility at the tenant level). */
    QUEUE_TURN,
    /** A call at its queue's turn waits for its class's start tag (eligibility at class level). */
    CLASS_TURN,
    /** A start tag is {@code max(F, now)}; without it, an idle queue's or class's old {@code F}. */
    LIFT,
    /** A queue stays active for the anticipation time after it was last seen; without it, 0. */
    ANTICIPATION,
    /**
     * A class is entitled by the weight of the queues it remembers; without it, its active ones.
     */
    REMEMBERED_WEIGHT,
    /** A queue's tags move at its part of its class's served rate; without it, of its share. */
    SERVED_RATE,
    /** Release moves the class and queue tags by the true dominant cost. */
    TAG_CORRECTION,
    /** A call served ahead of its turn is counted as if it had started now. */
    FORGIVE,
    /** A call at its turn that the cap does not hold is given a firm slot, held at once. */
    FIRM_SLOT,
    /**
     * A class's turn is measured against the cap's booked time (the later of now and the call's
     * firm slot); without it, against now.
     */
    BOOKED_TURN,
    /** A call at its queue's turn, not its class's, is admitted if it leaves others their room. */
    BORROWING,
    /** A call ahead of its queue's turn is admitted when the cap would otherwise fill up. */
    FILL,
    /** A borrowing call leaves room for the calls at their turn and the classes within share. */
    ROOM,
    /** A call is counted at its estimate plus its class's mean shortfall. */
    ESTIMATE_CORRECTION,
    /**
     * The safe window plans a held slot to leave the spread of the callers' lateness after its
     * period; without it, at its period.
     */
    LATENESS,
    /**
     * An expired call gets back what it paid at earlier attempts on its queue's and class's tags.
     */
    EXPIRY_REFUND;

    /** Its name in configurations: lower case, words joined by {@code -}. */
    String label() {
      return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    /**
     * The mechanism labelled {@code label}.
     *
     * @throws IllegalArgumentException naming the label and listing the known ones
     */
    static Mechanism labelled(String label) {
      for (Mechanism m : values()) {
        if (m.label().equals(label)) {
          return m;
        }
      }
      StringBuilder known = new StringBuilder();
      for (Mechanism m : values()) {
        known.append(known.length() == 0 ? "" : ", ").append(m.label());
      }
      throw new IllegalArgumentException(
          "unknown mechanism '" + label + "' of the fair-queuing rule; allowed: " + known);
    }
  }

  /** Every mechanism: the rule as it is meant to run. */
  static final Set<Mechanism> ALL = Collections.unmodifiableSet(EnumSet.allOf(Mechanism.class));

  /** The shortest deferral, µs: a timer shorter than this is not worth a round trip. */
  static final long MIN_DEFER_MICROS = 1_000L;

  /** The weight of one release in the class's estimate correction (about the last five calls). */
  static final double CORRECTION_WEIGHT = 0.2;

  /** The weight of one admitted call in its class's average call, which sizes the room kept. */
  static final double CALL_WEIGHT = 0.1;

  /**
   * How long a call whose turn has come may be kept waiting by calls served ahead of their turn,
   * µs: the room those leave is what the calls served at their turn use in this time.
   */
  static final long ISOLATION_MICROS = 100_000L;

  private final int dims;
  private final int classes;
  private final CapLayer cap;
  private final OrderLayer order;
  private final double[][] correction;
  private final double[][] meanCall;
  private final double[][] use;
  private final double[] servedRate;

  /** Per dimension, the rate of the calls served at their turn (units per µs, averaged). */
  private final double[] turnUse;

  /** The call being admitted's expected cost: its estimate plus its class's mean shortfall. */
  private final double[] expected;

  private final double[] room;
  private final double[] noRoom;
  private final double[] delta;
  private final int[] queues;
  private Policy policy;
  private DerivedPolicy derived;
  private double[] largest;
  private double horizonMicros;
  private boolean strict;
  private long last = Long.MIN_VALUE;
  private boolean emptyAtStart;
  private boolean spentAtStart;

  /** The mechanisms switched on (never changed). */
  private final Set<Mechanism> on;

  FairRule(Policy policy) {
    this(policy, ALL);
  }

  /** A rule that runs with the {@code mechanisms} given only (an ablation); {@link #ALL}: all. */
  @SuppressWarnings("NullAway.Init") // configure sets policy, derived and largest
  FairRule(Policy policy, Set<Mechanism> mechanisms) {
    EnumSet<Mechanism> switched = EnumSet.noneOf(Mechanism.class);
    switched.addAll(mechanisms);
    this.on = Collections.unmodifiableSet(switched);
    this.dims = policy.dimensions().size();
    this.classes = policy.priorities().size();
    this.cap = new CapLayer(dims, on);
    this.order = new OrderLayer(classes, on);
    this.correction = new double[classes][dims];
    this.meanCall = new double[classes][dims];
    this.use = new double[classes][dims];
    this.servedRate = new double[classes];
    this.turnUse = new double[dims];
    this.expected = new double[dims];
    this.room = new double[dims];
    this.noRoom = new double[dims];
    this.delta = new double[dims];
    this.queues = new int[classes];
    configure(policy);
  }

  @Override
  public void startEmpty() {
    emptyAtStart = true;
  }

  @Override
  public void startAfterLoss() {
    emptyAtStart = true;
    spentAtStart = true;
  }

  @Override
  public void configure(Policy next) {
    if (policy != null
        && (!next.dimensionNames().equals(policy.dimensionNames())
            || !next.priorityNames().equals(policy.priorityNames()))) {
      throw new InvalidPolicyException(
          "dimensions",
          "a live gate can change caps and weights, not its dimensions or classes; create a new gate");
    }
    this.policy = next;
    this.derived = DerivedPolicy.of(next);
    this.largest = new double[dims];
    for (int d = 0; d < dims; d++) {
      largest[d] = derived.largest(d);
    }
    this.horizonMicros = derived.horizonMicros();

    this.strict = derived.strict();
    double[] weights = new double[classes];
    for (int k = 0; k < classes; k++) {
      weights[k] = derived.classWeight(k);
    }
    cap.configure(derived, last == Long.MIN_VALUE ? 0 : last);
    order.configure(weights, derived.horizonMicros(), derived.idleTtlMicros());
  }

  @Override
  public Policy policy() {
    return policy;
  }

  @Override
  public DerivedPolicy derived() {
    return derived;
  }

  /** The dominant cost {@code max_d c_d / r_d}, in microseconds of the whole cap. */
  private double sigma(double[] cost) {
    double sigma = 0;
    for (int d = 0; d < dims; d++) {
      sigma = Math.max(sigma, cost[d] / cap.rate(d));
    }
    return sigma;
  }

  @Override
  public long admit(
      long now,
      String tenant,
      int k,
      double[] estimate,
      double @Nullable [] reserve,
      NestedBuckets.Booking booking,
      long maxWaitMicros) {
    advance(now);
    OrderLayer.Queue q = order.touch(now, tenant, k, policy.tenantWeight(tenant));
    if (booking.lined) {
      long at = Math.max(booking.readyAt, cap.sendableAt(now, booking.debit));
      if (at > now) {
        booking.readyAt = at;
        return Math.max(MIN_DEFER_MICROS, at - now);
      }
      cap.send(now, booking.readyAt, booking.entries, booking.debit);
      return 0;
    }
    double[] cost = booking.paced;
    for (int d = 0; d < dims; d++) {
      expected[d] = Math.min(largest[d], estimate[d] + correction[k][d]);
      cost[d] = reserve != null ? reserve[d] : expected[d];
    }
    booking.estimate = estimate;
    booking.debit = cost;
    if (booking.entries == null) {
      booking.entries = new SlidingWindow.Entry[dims];
    }
    double sigma = sigma(cost);
    double share = strict ? 1 : order.entitled(k);
    double classRate = on.contains(Mechanism.SERVED_RATE) ? Math.max(servedRate[k], share) : share;
    boolean fresh = !booking.paid;
    if (fresh) {
      booking.queueStart = order.queueStart(q, now);
      order.payQueue(q, booking.queueStart, sigma, classRate);
      booking.paid = true;
      booking.paidShare = sigma;
    }
    boolean queueTurn = !on.contains(Mechanism.QUEUE_TURN) || booking.queueStart <= now;
    boolean classPaidNow = queueTurn && !booking.classPaid;
    if (classPaidNow) {
      booking.classStart = order.classStart(k, now);
      order.payClass(k, booking.classStart, sigma, share);
      booking.classPaid = true;
    }
    // The firm slot: the earliest the cap takes the call leaving no room. A class's turn is
    // measured against the cap's booked time, not now: a call whose class's turn the cap is
    // booked past would find the cap no emptier at that turn (docs/admission-rule.md, "The defer
    // protocol", case 1).
    long firm = queueTurn ? cap.fitsAt(now, cost, noRoom) : Long.MAX_VALUE;
    long turnBy = on.contains(Mechanism.BOOKED_TURN) ? Math.max(now, firm) : now;
    boolean atTurn =
        queueTurn
            && (strict
                ? !higherActive(k)
                : booking.classPaid
                    && (!on.contains(Mechanism.CLASS_TURN) || booking.classStart <= turnBy));
    if (atTurn) {
      for (int d = 0; d < dims; d++) {
        turnUse[d] += cost[d] / horizonMicros;
      }
      if (firm <= now) {
        return admitted(now, k, booking, cost, sigma);
      }
      long wait = firm - now;
      if (maxWaitMicros >= 0 && wait > maxWaitMicros) {
        return expired(q, booking, fresh, classPaidNow, sigma, share, classRate, wait);
      }
      if (on.contains(Mechanism.FIRM_SLOT)) {
        return firmSlot(q, booking, cost, sigma, firm, wait);
      }
      booking.readyAt = firm;
      order.touch(firm, tenant, k, q.weight);
      return Math.max(MIN_DEFER_MICROS, wait);
    }
    // Borrowing needs the room others are owed on top of the firm slot's, so it cannot succeed
    // while the firm slot is later than now.
    boolean early =
        queueTurn
            ? strict || (on.contains(Mechanism.BORROWING) && firm <= now)
            : on.contains(Mechanism.FILL);
    long slot =
        early
            ? cap.fitsAt(now, cost, queueTurn ? roomFor(k, now) : full(cost))
            : (long) Math.ceil(queueTurn ? booking.classStart : booking.queueStart);
    if (slot <= now) {
      if (booking.classPaid) {
        order.unpayClassIfLast(k, booking.classStart, sigma, share);
      }
      if (on.contains(Mechanism.FORGIVE)) {
        order.forgive(q, now, sigma, classRate);
      }
      return admitted(now, k, booking, cost, sigma);
    }
    // Strict mode has no class turn to wait for while a higher class is active: the call comes back
    // when the cap has the room it must leave.
    double turn =
        queueTurn && strict
            ? Double.MAX_VALUE
            : (queueTurn ? booking.classStart : booking.queueStart) - now;
    // A call ahead of its queue's turn is woken when the cap would fill up at its first attempt
    // only: a later one would find the capacity taken by as many callers as before.
    boolean toTurn = queueTurn ? !strict : !fresh;
    long wait =
        Math.max(
            MIN_DEFER_MICROS,
            toTurn ? (long) Math.ceil(turn) : Math.min((long) Math.ceil(turn), slot - now));
    if (maxWaitMicros >= 0 && wait > maxWaitMicros) {
      return expired(q, booking, fresh, classPaidNow, sigma, share, classRate, wait);
    }
    booking.readyAt = now + wait;
    order.touch(now + wait, tenant, k, q.weight);
    return wait;
  }

  /** Holds the call's firm slot at {@code slot} and defers it to it. */
  private long firmSlot(
      OrderLayer.Queue q,
      NestedBuckets.Booking booking,
      double[] cost,
      double sigma,
      long slot,
      long wait) {
    cap.hold(slot, cost, expected, booking.entries);
    served(q.priority, cost, sigma);
    booking.lined = true;
    booking.readyAt = slot;
    order.touch(slot, q.tenant, q.priority, q.weight);
    return Math.max(MIN_DEFER_MICROS, wait);
  }

  /** The room that leaves the cap no fuller than one call short of its burst. */
  private double[] full(double[] cost) {
    for (int d = 0; d < dims; d++) {
      room[d] = cap.burst(d) - 2 * cost[d];
    }
    return room;
  }

  /** Whether a class above {@code k} is active (strict mode). */
  private boolean higherActive(int k) {
    for (int j = 0; j < k; j++) {
      if (order.classActive(j)) {
        return true;
      }
    }
    return false;
  }

  /**
   * The room a call of class {@code k} ahead of its class's turn leaves: one average call of every
   * other active class within its share (strict: of every higher active class).
   */
  private double[] roomFor(int k, long now) {
    if (!on.contains(Mechanism.ROOM)) {
      return noRoom;
    }
    for (int d = 0; d < dims; d++) {
      room[d] = turnUse[d] * ISOLATION_MICROS;
    }
    for (int j = 0; j < classes; j++) {
      boolean owed = j != k && order.classActive(j) && (strict ? j < k : order.withinShare(j, now));
      if (owed) {
        for (int d = 0; d < dims; d++) {
          room[d] += meanCall[j][d];
        }
      }
    }
    return room;
  }

  private long admitted(long now, int k, NestedBuckets.Booking booking, double[] cost, double s) {
    cap.take(now, cost, booking.entries);
    served(k, cost, s);
    booking.readyAt = now;
    return 0;
  }

  /** The order layer and the class averages count a call served (admitted or given its slot). */
  private void served(int k, double[] cost, double s) {
    servedRate[k] += s / horizonMicros;
    for (int d = 0; d < dims; d++) {
      meanCall[k][d] += CALL_WEIGHT * (cost[d] - meanCall[k][d]);
      use[k][d] += cost[d] / (horizonMicros / 1e6);
    }
  }

  private long expired(
      OrderLayer.Queue q,
      NestedBuckets.Booking booking,
      boolean fresh,
      boolean classPaidNow,
      double sigma,
      double share,
      double classRate,
      long wait) {
    if (fresh) {
      q.finish = booking.queueStart;
      booking.paid = false;
    } else if (on.contains(Mechanism.EXPIRY_REFUND)) {
      order.refundQueue(q, booking.paidShare, classRate);
    }
    if (classPaidNow) {
      order.unpayClassIfLast(q.priority, booking.classStart, sigma, share);
      booking.classPaid = false;
    } else if (booking.classPaid && on.contains(Mechanism.EXPIRY_REFUND)) {
      order.refundClass(q.priority, booking.paidShare, share);
    }
    return -wait;
  }

  @Override
  public void release(long now, NestedBuckets.Booking grant, double[] actual) {
    advance(now);
    int k = grant.priority;
    boolean ran = true;
    for (int d = 0; d < dims; d++) {
      delta[d] = actual[d] - grant.debit[d];
      ran &= grant.estimate[d] <= 0 || actual[d] > 0;
    }
    cap.correct(now, delta, grant.entries);
    OrderLayer.Queue q = order.touch(now, grant.tenant, k, policy.tenantWeight(grant.tenant));
    double share = strict ? 1 : order.entitled(k);
    if (on.contains(Mechanism.TAG_CORRECTION)) {
      double rate = on.contains(Mechanism.SERVED_RATE) ? Math.max(servedRate[k], share) : share;
      order.correct(q, sigma(actual) - grant.paidShare, share, rate);
    }
    for (int d = 0; d < dims; d++) {
      use[k][d] = Math.max(0, use[k][d] + delta[d] / (horizonMicros / 1e6));
      if (ran && on.contains(Mechanism.ESTIMATE_CORRECTION)) {
        double shortfall = Math.max(0, actual[d] - grant.estimate[d]);
        correction[k][d] += CORRECTION_WEIGHT * (shortfall - correction[k][d]);
      }
    }
  }

  @Override
  public void charge(long now, double[] spent) {
    advance(now);
    cap.charge(now, spent);
  }

  @Override
  public void spent(int d, long from, long until) {
    cap.closeUntil(d, until);
  }

  /** Decays the class averages to {@code now} and lets idle queues go; the first step starts. */
  private void advance(long now) {
    if (last == Long.MIN_VALUE) {
      last = now;
      cap.configure(derived, now);
      if (emptyAtStart) {
        cap.empty(now, spentAtStart);
      }
    }
    if (now > last) {
      double keep = Math.exp(-(now - last) / horizonMicros);
      for (int d = 0; d < dims; d++) {
        turnUse[d] *= keep;
      }
      for (int k = 0; k < classes; k++) {
        servedRate[k] *= keep;
        for (int d = 0; d < dims; d++) {
          use[k][d] *= keep;
        }
      }
      last = now;
    }
    order.expire(now);
  }

  @Override
  public NestedBuckets.Snapshot snapshot() {
    double[] global = new double[dims];
    double[][] levels = new double[classes][dims];
    double[][] rates = new double[classes][];
    long now = last == Long.MIN_VALUE ? 0 : last;
    for (int d = 0; d < dims; d++) {
      global[d] = cap.level(d, now);
    }
    for (int k = 0; k < classes; k++) {
      rates[k] = use[k].clone();
      queues[k] = order.activeQueues(k);
    }
    return new NestedBuckets.Snapshot(now, global, levels, rates, queues.clone());
  }

  @Override
  public @Nullable QueueState queue(String tenant, int k) {
    OrderLayer.Queue q = order.find(tenant, k);
    if (q == null) {
      return null;
    }
    double weights = Math.max(order.weightSum(k), q.weight);
    return new QueueState(
        last - q.finish, 0, q.weight * servedRate[k] * 1e6 / weights, q.weight, q.seen);
  }

  /** Writes the rule's whole state under {@link FairRuleSchema}'s names. */
  void readState(java.util.Map<String, Double> out) {
    out.put("last", last == Long.MIN_VALUE ? Double.NEGATIVE_INFINITY : (double) last);
    for (int d = 0; d < dims; d++) {
      out.put(FairRuleSchema.key("turnUse", d), turnUse[d]);
    }
    for (int k = 0; k < classes; k++) {
      out.put(FairRuleSchema.key("servedRate", k), servedRate[k]);
      for (int d = 0; d < dims; d++) {
        out.put(FairRuleSchema.key("correction", k, d), correction[k][d]);
        out.put(FairRuleSchema.key("meanCall", k, d), meanCall[k][d]);
        out.put(FairRuleSchema.key("use", k, d), use[k][d]);
      }
    }
    cap.readState(out);
    order.readState(out);
  }
}
