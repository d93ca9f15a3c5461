package io.backpressure.core;

import io.backpressure.core.spi.LimitPlan;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import org.jspecify.annotations.Nullable;

/**
 * The in-memory state of a target's {@link io.backpressure.core.Limits}: the counters of {@link
 * LimitPlan} (its essay has the rule) and the concurrency leases. The in-memory gate consults it
 * under its lock, in the same atomic step as the admission rule: {@link #check} before the rule
 * decides, {@link #debit} only when the rule admits, {@link #release} when the call's grant is
 * released. {@code limits.lua} is its twin on Redis:
 *
 * <table>
 *   <caption>Java and Lua names</caption>
 *   <tr><th>Java</th><th>limits.lua</th></tr>
 *   <tr><td>{@link #check}</td><td>{@code limits_check}</td></tr>
 *   <tr><td>{@link #debit}</td><td>{@code limits_debit}</td></tr>
 *   <tr><td>{@link #release}</td><td>{@code limits_release}</td></tr>
 *   <tr><td>{@code counters}: field → {start, used, held}</td><td>hash {@code limits}: field →
 *       "start used held"</td></tr>
 *   <tr><td>{@code leases}: grant → its lease</td><td>zset {@code leases}: {@code cmsgpack({grant
 *       key, class scope, tenant scope})} by expiry</td></tr>
 *   <tr><td>{@code scopeLeases}: scope → leases</td><td>hash {@code limits}, fields {@code
 *       in:k:<class>} and {@code in:t:<tenant>}</td></tr>
 *   <tr><td>{@link #expiredLeases()}</td><td>hash {@code limits}, field {@code expired}</td></tr>
 *   <tr><td>{@code adaptiveLimit}, {@code lastDecrease}, {@code slowSeen}, {@code
 *       latency}</td><td>hash {@code limits}, field {@code adaptive}: "limit last_decrease
 *       slow_seen latency"</td></tr>
 *   <tr><td>{@link #overdue}</td><td>{@code limits_overdue}</td></tr>
 *   <tr><td>{@link #overload}</td><td>{@code limits_decrease} (overload.lua)</td></tr>
 * </table>
 *
 * <h2>Concurrency leases</h2>
 *
 * A call admitted under a concurrency limit holds a lease until its grant is released, counted at
 * the target and in its class's and its tenant's scopes ({@link LimitPlan.Scope}); a lease not
 * released within the lease TTL (a crashed worker, a lost release) expires by itself, leaves every
 * scope and is counted ({@link #expiredLeases()}). When the target or one of the call's scopes
 * holds its {@code max_in_flight} leases, the call is deferred until the target's earliest lease
 * expires, but for at most {@link LimitPlan#POLL_MICROS}: nobody can predict when a call completes,
 * so the deferred call polls.
 *
 * <p>Under an {@linkplain Limits.Adaptive adaptive} limit the target's limit is the one its law
 * keeps here ({@link #limitOf}): each release of a leased call is a latency sample (admission to
 * release, on the calendar clock), and so is the oldest call still in flight past the latency
 * target, once ({@link #overdue}); each {@link #overload} is a decrease. The last sample is also
 * the target's measured latency, which a call's deadline must cover for the call to be sent ({@link
 * Limits.Adaptive#spare}).
 *
 * <p>Not thread-safe: its owner calls it under its lock. Times are µs since the epoch.
 */
final class LimitLedger {

  /** One window's counter: its start, what it holds, and the part outstanding calls may return. */
  private static final class Count {
    long start;
    double used;
    double held;
  }

  /** What a released grant gives back: its plan and the instant it was admitted. */
  private record Debited(LimitPlan plan, long admittedAt, long expiresAt) {}

  private final Map<String, Count> counters = new HashMap<>();

  /** Admitted grants' plans, in admission order (so expiry sweeps from the head). */
  private final LinkedHashMap<String, Debited> debited = new LinkedHashMap<>();

  /** A lease in force: its expiry and the scopes it counts in. */
  private record Lease(long expiresAt, String classScope, String tenantScope) {}

  private final Map<String, Lease> leases = new HashMap<>();
  private final Map<String, Integer> scopeLeases = new HashMap<>();
  private final PriorityQueue<Map.Entry<String, Long>> leaseExpiries =
      new PriorityQueue<>(Map.Entry.comparingByValue());
  private long expiredLeases;

  /** The adaptive limit as last stored (0: none yet), and when it last decreased (0: never). */
  private int adaptiveLimit;

  private long lastDecrease;

  /**
   * The expiry of the latest lease counted as a slow sample while still in flight ({@link
   * #overdue}); a lease expiring no later has been counted, and its release gives no sample. 0:
   * none.
   */
  private long slowSeen;

  /**
   * The latency the target's calls take, as last measured (µs; 0: not yet): the last released
   * leased call's, from its admission to its release, or the age of the oldest call in flight when
   * it was found overdue and that was longer ({@link #overdue}).
   */
  private long latency;

  /**
   * What the limits say of a call: let the rule decide ({@link #PASS}), wait {@code waitMicros},
   * {@code rejected}, or {@code expired}.
   *
   * @param rejected the terminal answer, or null
   * @param expired the answer for a call its deadline leaves no time to be answered in ({@link
   *     Limits.Adaptive#spare}), or null
   * @param waitMicros how long the call must wait when neither; 0 when the limits let it pass
   */
  public record Verdict(
      Admission.@Nullable Rejected rejected, Admission.@Nullable Expired expired, long waitMicros) {
    /** The limits let the call pass to the rule. */
    public static final Verdict PASS = new Verdict(null, null, 0);

    /** Whether the limits let the call pass to the rule. */
    public boolean passes() {
      return rejected == null && expired == null && waitMicros == 0;
    }
  }

  /**
   * Whether the call of {@code plan} may be admitted at {@code now} as far as the limits go. A
   * counter of a past window counts as zero. Under an adaptive limit, a call with a deadline
   * ({@code deadlineMicros} from now; negative: none) is expired at once when the deadline does not
   * cover the measured latency and another call is in flight, or when the lease it waits for would
   * come later than its deadline less that latency ({@link Limits.Adaptive#spare}). Changes nothing
   * but the expired leases and, under an adaptive limit, the limit when the oldest call in flight
   * is overdue ({@link #overdue}).
   */
  public Verdict check(LimitPlan plan, long now, long deadlineMicros) {
    Admission.Rejected terminal = null;
    long terminalReset = 0;
    long wait = 0;
    for (LimitPlan.Counter c : plan.counters()) {
      if (c.cost() > c.limit()) {
        return new Verdict(LimitPlan.neverFits(c), null, 0);
      }
      long[] window = plan.window(c.period(), now);
      Count count = counters.get(c.field());
      double used = 0;
      double held = 0;
      if (count != null && count.start == window[0]) {
        used = count.used;
        held = count.held;
      }
      if (used + c.cost() <= c.limit()) {
        continue;
      }
      if (used - held + c.cost() <= c.limit()) {
        wait = LimitPlan.POLL_MICROS;
      } else if (terminal == null || window[1] > terminalReset) {
        terminal = LimitPlan.rejection(c, used, window[1]);
        terminalReset = window[1];
      }
    }
    if (terminal != null) {
      return new Verdict(terminal, null, 0);
    }
    if (plan.concurrency() != null) {
      expireLeases(now);
      Limits.Adaptive adaptive = plan.concurrency().adaptive();
      long spare = Long.MAX_VALUE;
      if (adaptive != null) {
        overdue(adaptive, plan.concurrency().leaseTtl().toNanos() / 1_000, now);
        spare = Limits.Adaptive.spare(deadlineMicros, latency);
        if (spare < 0 && !leases.isEmpty()) {
          return new Verdict(null, Limits.Adaptive.late(deadlineMicros, latency, 0), 0);
        }
      }
      if (full(limitOf(plan.concurrency()), plan.scopes())) {
        long untilExpiry = leaseExpiries.peek().getValue() - now;
        long lease = untilExpiry < LimitPlan.POLL_MICROS ? untilExpiry : LimitPlan.POLL_MICROS;
        if (lease > spare) {
          return new Verdict(null, Limits.Adaptive.late(deadlineMicros, latency, lease), 0);
        }
        wait = wait > lease ? wait : lease;
      }
    }
    return wait > 0 ? new Verdict(null, null, wait) : Verdict.PASS;
  }

  /**
   * Debits the call of {@code plan}, admitted at {@code now} as {@code grant}: its cost to every
   * counter and, under a concurrency limit, a lease until {@code now} plus the lease TTL. The
   * grant's plan is kept until {@code grantExpiresAt}.
   */
  public void debit(String grant, LimitPlan plan, long now, long grantExpiresAt) {
    for (LimitPlan.Counter c : plan.counters()) {
      Count count = count(c.field(), plan.window(c.period(), now)[0]);
      count.used += c.cost();
      count.held += c.hold();
    }
    if (plan.concurrency() != null) {
      long expiry = now + plan.concurrency().leaseTtl().toNanos() / 1_000;
      Lease lease = new Lease(expiry, plan.scopes().get(0).field(), plan.scopes().get(1).field());
      leases.put(grant, lease);
      leaseExpiries.add(Map.entry(grant, expiry));
      scopeLeases.merge(lease.classScope(), 1, Integer::sum);
      scopeLeases.merge(lease.tenantScope(), 1, Integer::sum);
    }
    debited.put(grant, new Debited(plan, now, grantExpiresAt));
  }

  /**
   * Reconciles the released grant with what the call really used ({@code actual} per dimension, in
   * the policy's order) and gives its lease back; under an {@code adaptive} limit (the policy's at
   * release, or null) the call's latency, from its admission to {@code now}, moves the limit. A
   * grant this ledger does not hold (never debited, released already, expired) changes nothing, and
   * neither does the release of a lease past its TTL: the leases expired at {@code now} are swept
   * first, as an admission under the limit does.
   */
  public void release(String grant, double[] actual, long now, Limits.@Nullable Adaptive adaptive) {
    Debited d = debited.remove(grant);
    if (d == null) {
      return;
    }
    for (LimitPlan.Counter c : d.plan().counters()) {
      Count count = counters.get(c.field());
      if (count == null || count.start != d.plan().window(c.period(), d.admittedAt())[0]) {
        continue;
      }
      // Never below zero: after a reset the count no longer holds the cost this call corrects.
      double used = count.used + c.actualCost(actual[c.dimension()]) - c.cost();
      count.used = used > 0 ? used : 0;
      double held = count.held - c.hold();
      count.held = held > 0 ? held : 0;
    }
    if (d.plan().concurrency() == null) {
      return;
    }
    expireLeases(now);
    // The lease's heap entry stays until its expiry, when expireLeases drops it uncounted.
    Lease lease = leases.get(grant);
    if (lease == null) {
      return;
    }
    if (adaptive != null) {
      latency = now - d.admittedAt();
    }
    if (adaptive != null && lease.expiresAt() > slowSeen) {
      int limit = adaptive.current(adaptiveLimit);
      if (now - d.admittedAt() > adaptive.latencyTargetMicros()) {
        decrease(adaptive, limit, now);
      } else {
        adaptiveLimit = adaptive.increased(limit, leases.size());
      }
    }
    leases.remove(grant);
    leave(lease);
  }

  /**
   * The oldest call in flight under the {@code adaptive} limit, admitted more than its latency
   * target before {@code now}, is a slow sample before it is released: the limit decreases (at most
   * once per latency target), the measured latency becomes at least the call's age, and the call is
   * counted once, here and not at its release. A lease's admission is its expiry less {@code
   * leaseTtlMicros}, the lease TTL in force. Without this, a provider that slows to a latency L
   * would be noticed only when the first slow call comes back, L after the slowdown instead of one
   * latency target.
   */
  private void overdue(Limits.Adaptive adaptive, long leaseTtlMicros, long now) {
    Map.Entry<String, Long> oldest = leaseExpiries.peek();
    if (oldest == null) {
      return;
    }
    long expiry = oldest.getValue();
    long age = now - (expiry - leaseTtlMicros);
    if (expiry > slowSeen && age > adaptive.latencyTargetMicros()) {
      slowSeen = expiry;
      latency = latency > age ? latency : age;
      decrease(adaptive, adaptive.current(adaptiveLimit), now);
    }
  }

  /**
   * The provider answered a call with an overload (a timeout, a 5xx, a 529): the {@code adaptive}
   * limit decreases, unless it already did within its latency target.
   */
  public void overload(Limits.Adaptive adaptive, long now) {
    decrease(adaptive, adaptive.current(adaptiveLimit), now);
  }

  /**
   * The target's concurrency limit in force: the adaptive limit's current value, else {@code
   * concurrency}'s fixed {@code max_in_flight}.
   */
  public int limitOf(Limits.Concurrency concurrency) {
    Limits.Adaptive adaptive = concurrency.adaptive();
    return adaptive == null ? concurrency.maxInFlight() : adaptive.current(adaptiveLimit);
  }

  /**
   * What the adaptive limit's state holds: {@code {limit, last decrease µs, expiry µs of the latest
   * lease counted slow in flight, measured latency µs}}, zeros when it was never moved. For the
   * differential tests.
   */
  public long[] adaptiveState() {
    return new long[] {adaptiveLimit, lastDecrease, slowSeen, latency};
  }

  private void decrease(Limits.Adaptive adaptive, int limit, long now) {
    if (adaptive.mayDecrease(lastDecrease, now)) {
      adaptiveLimit = adaptive.decreased(limit);
      lastDecrease = now;
    }
  }

  /** Forgets the plans of grants past their TTL (their leases expire on their own). */
  public void expire(long now) {
    for (Iterator<Debited> it = debited.values().iterator(); it.hasNext(); ) {
      if (it.next().expiresAt() > now) {
        break;
      }
      it.remove();
    }
  }

  /** Leases in force now: held and not past their expiry. Changes nothing. */
  public int inFlight(long now) {
    int n = 0;
    for (Lease lease : leases.values()) {
      if (lease.expiresAt() > now) {
        n++;
      }
    }
    return n;
  }

  /** Leases that expired unreleased since this ledger started. */
  public long expiredLeases() {
    return expiredLeases;
  }

  /**
   * What counter {@code field} holds and has held for outstanding calls: {@code {start, used,
   * held}}, or null when it was never used. For inspection and the differential tests.
   */
  public double @Nullable [] counter(String field) {
    Count count = counters.get(field);
    return count == null ? null : new double[] {count.start, count.used, count.held};
  }

  /**
   * Empties counter {@code field} for the window starting at {@code windowStart}: it holds nothing,
   * and nothing is held for outstanding calls. Those calls still reconcile on release, adding what
   * they used beyond their cost (never taking the count below zero). Returns what it held: {@code
   * {used, held}}, zeros when it held nothing in that window.
   */
  public double[] reset(String field, long windowStart) {
    Count count = counters.get(field);
    double[] before =
        count != null && count.start == windowStart
            ? new double[] {count.used, count.held}
            : new double[2];
    Count fresh = count(field, windowStart);
    fresh.used = 0;
    fresh.held = 0;
    return before;
  }

  private Count count(String field, long start) {
    Count count = counters.computeIfAbsent(field, f -> new Count());
    if (count.start != start) {
      count.start = start;
      count.used = 0;
      count.held = 0;
    }
    return count;
  }

  /**
   * Drops the leases expired at {@code now}, counting them, and the heap entries of leases released
   * before; afterwards the heap's head is a lease in force, if any.
   */
  private void expireLeases(long now) {
    while (!leaseExpiries.isEmpty()) {
      Map.Entry<String, Long> head = leaseExpiries.peek();
      Lease lease = leases.get(head.getKey());
      boolean inForce = lease != null && lease.expiresAt() == head.getValue();
      if (inForce && head.getValue() > now) {
        return;
      }
      leaseExpiries.poll();
      if (lease != null && inForce) {
        leases.remove(head.getKey());
        leave(lease);
        expiredLeases++;
      }
    }
  }

  /** Whether the target or one of the call's scopes holds as many leases as its limit allows. */
  private boolean full(int maxInFlight, List<LimitPlan.Scope> scopes) {
    if (leases.size() >= maxInFlight) {
      return true;
    }
    for (LimitPlan.Scope scope : scopes) {
      if (scope.maxInFlight() > 0
          && scopeLeases.getOrDefault(scope.field(), 0) >= scope.maxInFlight()) {
        return true;
      }
    }
    return false;
  }

  /** Takes a lease that ended out of its scopes' counts, forgetting a scope left empty. */
  private void leave(Lease lease) {
    scopeLeases.computeIfPresent(lease.classScope(), (s, n) -> n > 1 ? n - 1 : null);
    scopeLeases.computeIfPresent(lease.tenantScope(), (s, n) -> n > 1 ? n - 1 : null);
  }
}
