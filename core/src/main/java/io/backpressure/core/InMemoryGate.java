package io.backpressure.core;

import io.backpressure.core.feedback.FeedbackState;
import io.backpressure.core.feedback.ProviderSignal;
import io.backpressure.core.spi.EffectiveCaps;
import io.backpressure.core.spi.LimitPlan;
import io.backpressure.core.spi.RequestCheck;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The gate with its state in this JVM: the reference implementation of the admission rule (see
 * {@link NestedBuckets} for the algorithm) and the embedded default.
 *
 * <p>Thread-safe: every call takes the gate's one lock for a few hundred nanoseconds, so admission
 * and release are each one atomic step, and concurrent callers can never double-spend a bucket.
 * Work per call is independent of the number of tenants. Grants not released within the policy's
 * grant TTL, and bookings not redeemed within it, are forgotten. An abandoned booking costs its
 * queue nothing lasting: the debt it paid is what its own wait would have refilled.
 */
public final class InMemoryGate implements Gate, QuotaAdmin {
  /** Most entries the in-memory audit trail keeps. */
  public static final int AUDIT_ENTRIES = 1_000;

  /**
   * The audit log, looked up at its first line: loading this class (to list the rule's mechanisms,
   * say) must not start the application's logging backend before the application configures it.
   */
  private static final class Audit {
    static final Logger LOG = LoggerFactory.getLogger("io.backpressure.audit");
  }

  /** Most released bookings a gate keeps for reuse. */
  private static final int SPARE_BOOKINGS = 64;

  private final Ticker clock;

  /** The time of the calendar windows and leases ({@link Limits}). */
  private final EpochClock calendar;

  /** The state of the limits beyond the per-second caps (guarded by the lock). */
  private final LimitLedger limits = new LimitLedger();

  private final AdmissionRule buckets;
  private final GrantTable grants = new GrantTable();
  private final Map<String, NestedBuckets.Booking> bookings = new LinkedHashMap<>();

  /**
   * Bookings of released grants, at most {@link #SPARE_BOOKINGS}, handed to the next fresh calls
   * instead of new ones (guarded by the lock).
   */
  private final ArrayDeque<NestedBuckets.Booking> spare = new ArrayDeque<>();

  private final EffectiveCaps caps;

  /** The last {@link #AUDIT_ENTRIES} quota changes, oldest first (guarded by the lock). */
  private final ArrayDeque<AuditEntry> audit = new ArrayDeque<>();

  /** The policy's dimension names, in order; a live update never changes them. */
  private final List<String> dimensionNames;

  /** The actual cost of the release in progress, per dimension (guarded by the lock). */
  private final double[] releaseAmounts;

  private double[] appliedCaps;

  private boolean ramping;
  private final WaitingLines waiting;
  private volatile Policy policy;
  private long nextId;
  private long nextExpiry;

  private InMemoryGate(Policy policy, Ticker clock, @Nullable EpochClock calendar) {
    this(policy, clock, calendar, new NestedBuckets(Objects.requireNonNull(policy, "policy")));
  }

  private InMemoryGate(
      Policy policy, Ticker clock, @Nullable EpochClock calendar, AdmissionRule rule) {
    this.clock = Objects.requireNonNull(clock, "clock");
    this.calendar = calendar != null ? calendar : following(clock);
    this.buckets = rule;
    this.policy = policy;
    this.appliedCaps = configuredCaps(policy);
    this.dimensionNames = policy.dimensionNames();
    this.releaseAmounts = new double[dimensionNames.size()];
    this.caps = new EffectiveCaps(policy.dimensionNames(), appliedCaps, policy.feedback());
    this.waiting = new WaitingLines(policy.priorities().size(), this::waits);
  }

  /** A gate on the system clock. */
  public static InMemoryGate create(Policy policy) {
    return new InMemoryGate(policy, Ticker.system(), EpochClock.unix());
  }

  /**
   * A gate on the given clock (virtual time in tests and the simulator). Its calendar windows and
   * leases ({@link Limits}) count from the system's date at creation, advanced by {@code clock}.
   */
  public static InMemoryGate create(Policy policy, Ticker clock) {
    return new InMemoryGate(policy, clock, null);
  }

  /**
   * A gate on the given clock whose calendar windows and leases ({@link Limits}) follow {@code
   * calendar}: for tests and replays that set the date (a {@code ManualClock} serves as both).
   */
  public static InMemoryGate create(Policy policy, Ticker clock, EpochClock calendar) {
    return new InMemoryGate(policy, clock, Objects.requireNonNull(calendar, "calendar"));
  }

  /**
   * A gate on the given clock that decides with the fair-queuing rule ({@link FairRule}: a cap
   * layer, an order layer and the defer protocol) instead of {@link NestedBuckets}: for the
   * evaluation's side-by-side runs of the two rules. The Redis backend's twin of this rule is
   * selected with its configuration's {@code fairQueuing} option.
   */
  public static InMemoryGate createFairQueuing(Policy policy, Ticker clock) {
    return new InMemoryGate(
        policy, clock, null, new FairRule(Objects.requireNonNull(policy, "policy")));
  }

  /**
   * {@link #createFairQueuing} on a calendar ({@link #create(Policy, Ticker, EpochClock)}'s), with
   * the rule's mechanisms named in {@code off} switched off: for the evaluation, whose ablations
   * measure what each mechanism buys. The names are those of {@link #fairQueuingMechanisms()}; an
   * empty set is the whole rule.
   *
   * @throws IllegalArgumentException naming an unknown mechanism and listing the known ones
   */
  public static InMemoryGate createFairQueuingWithout(
      Policy policy, Ticker clock, EpochClock calendar, Set<String> off) {
    Set<FairRule.Mechanism> on = EnumSet.copyOf(FairRule.ALL);
    for (String name : off) {
      on.remove(FairRule.Mechanism.labelled(name));
    }
    return new InMemoryGate(
        policy,
        clock,
        Objects.requireNonNull(calendar, "calendar"),
        new FairRule(Objects.requireNonNull(policy, "policy"), on));
  }

  /**
   * The names of the fair-queuing rule's mechanisms that {@link #createFairQueuingWithout} can
   * switch off, order layer first, then the defer protocol, then the cap layer.
   */
  public static List<String> fairQueuingMechanisms() {
    List<String> names = new ArrayList<>();
    for (FairRule.Mechanism m : FairRule.Mechanism.values()) {
      names.add(m.label());
    }
    return List.copyOf(names);
  }

  /** The system's time now, advanced by {@code clock} from now on. */
  private static EpochClock following(Ticker clock) {
    long epochAtStart = EpochClock.unix().epochNanos();
    long tickAtStart = clock.nanoTime();
    return () -> epochAtStart + (clock.nanoTime() - tickAtStart);
  }

  /**
   * A gate whose buckets start empty rather than full: it admits nothing until they have refilled
   * at the caps. For a stand-in that takes over from a gate that was just admitting at the cap,
   * such as {@link FailOpenGate}'s local fallback, so that the provider's current window does not
   * see a fresh burst on top of what the other gate admitted.
   */
  public static InMemoryGate createEmpty(Policy policy, Ticker clock) {
    InMemoryGate gate = new InMemoryGate(policy, clock, null);
    gate.buckets.startEmpty();
    return gate;
  }

  /**
   * A gate that takes over from state lost while it was admitting: its buckets start empty and,
   * when the policy has a safe window, its first step counts the window's whole allowance as
   * admitted, so it admits nothing for one period and then gates at the caps. The lost state's last
   * period is unknown, and the provider's current window may hold up to the cap admitted at any
   * moment of it. This is what the Redis backend does when it finds a running target's state gone
   * (a FLUSHALL, a restart without persistence); in memory, it suits a process that restarts within
   * one provider period of its previous run's admissions.
   */
  public static InMemoryGate createAfterLoss(Policy policy, Ticker clock) {
    InMemoryGate gate = new InMemoryGate(policy, clock, null);
    gate.buckets.startAfterLoss();
    return gate;
  }

  @Override
  public String target() {
    return policy().target();
  }

  /** The policy in force's {@link Policy#sendWithin()}. */
  @Override
  public @Nullable Duration sendWithin() {
    return policy().sendWithin();
  }

  /**
   * The policy in force, with the configured caps {@code C_d} (see {@link #feedbackState()} for
   * {@code E_d}).
   */
  public Policy policy() {
    return policy;
  }

  /**
   * Hot update: new caps and weights take effect from the next admission. The dimensions and
   * classes must keep their names.
   *
   * @throws InvalidPolicyException if the update changes the dimensions or classes
   */
  public synchronized void updatePolicy(Policy policy) {
    if (!policy.target().equals(target())) {
      throw new InvalidPolicyException("target", "a gate's target cannot change: " + target());
    }
    buckets.configure(policy);
    caps.reconfigure(configuredCaps(policy), policy.feedback());
    this.policy = policy;
    appliedCaps = configuredCaps(policy);
    applyCaps(clock.nanoTime() / 1_000);
  }

  /**
   * Learns from the provider's answer ({@link EffectiveCaps}); admission decides against the
   * effective caps from the next call on. The rule itself is untouched: the effective caps reach it
   * through the hot-update path, as a policy whose caps (and bursts, in proportion) are {@code
   * E_d}, clamped so that one request always fits ({@link EffectiveCaps#rulePolicy}). Never throws
   * for what the provider answers.
   */
  @Override
  public void feedback(@Nullable Grant grant, ProviderSignal signal) {
    Objects.requireNonNull(signal, "signal");
    Policy policy = this.policy;
    double[] own = EffectiveCaps.ownUse(policy.dimensionNames(), grant, signal);
    synchronized (this) {
      long now = clock.nanoTime() / 1_000;
      caps.observe(now, signal, own);
      applyCaps(now);
      Limits.Adaptive adaptive = adaptive(policy);
      if (adaptive != null && Limits.Adaptive.decreasesOn(signal)) {
        limits.overload(adaptive, calendar.epochNanos() / 1_000);
      }
      for (int d = 0; d < dimensionNames.size(); d++) {
        buckets.spent(d, caps.spentFrom(d), caps.spentUntil(d));
      }
    }
  }

  /** What the gate has learned from the provider, now. */
  public synchronized FeedbackState feedbackState() {
    return caps.state(clock.nanoTime() / 1_000);
  }

  /**
   * Hands the effective caps to the rule when they changed (caller holds the lock). While a
   * recovery ramp runs, every admission calls it, so the ramp rises with time, answers or not.
   */
  private void applyCaps(long now) {
    ramping = caps.rampMultiplier(now) < 1;
    double[] next = caps.applied(now);
    if (Arrays.equals(next, appliedCaps)) {
      return;
    }
    buckets.configure(EffectiveCaps.rulePolicy(policy, next));
    appliedCaps = next;
  }

  private static double[] configuredCaps(Policy policy) {
    double[] out = new double[policy.dimensions().size()];
    for (int d = 0; d < out.length; d++) {
      out[d] = policy.dimensions().get(d).capPerSecond();
    }
    return out;
  }

  @Override
  public Admission admit(AdmissionRequest request) {
    Objects.requireNonNull(request, "request");
    Policy policy = this.policy;
    RequestCheck check = RequestCheck.of(policy, request);
    if (check.rejection() != null) {
      return check.rejection();
    }
    int k = check.priorityIndex();
    Duration maxWait = check.maxWait(policy, request);
    String tenant = Objects.requireNonNull(request.tenant(), "checked");
    String priority = Objects.requireNonNull(request.priority(), "checked");
    LimitPlan plan = LimitPlan.of(policy, tenant, k, check.estimate(), check.reserve());
    String id;
    Cost debited;
    synchronized (this) {
      long now = clock.nanoTime() / 1_000;
      if (ramping) {
        applyCaps(now);
      }
      expire(now);
      // What the provider said (EffectiveCaps): a stop refuses until its reset, a retry-after
      // defers every call until it has passed, before the limits and the rule are asked.
      long stopped = caps.stoppedUntil();
      if (stopped > now) {
        return LimitPlan.providerStopped(
            policy.target(), calendar.epochNanos() / 1_000 + (stopped - now));
      }
      long paused = caps.pausedUntil();
      if (paused > now) {
        return deferral(paused - now, request, maxWait);
      }
      // The limits (Limits, LimitLedger): checked before the rule decides, debited once it admits.
      long epoch = plan.isEmpty() ? 0 : calendar.epochNanos() / 1_000;
      if (!plan.isEmpty()) {
        LimitLedger.Verdict verdict =
            limits.check(
                plan,
                epoch,
                request.deadline() == null ? -1 : request.deadline().toNanos() / 1_000);
        if (!verdict.passes()) {
          return limitAnswer(verdict, request, maxWait);
        }
      }
      NestedBuckets.Booking booking =
          request.booking() == null ? null : bookings.get(request.booking());
      if (booking != null
          && (booking.priority != k
              || !booking.tenant.equals(request.tenant())
              || booking.expiresAt <= now)) {
        booking = null;
      }
      boolean fresh = booking == null;
      if (booking == null) {
        booking = spare.pollFirst();
        if (booking == null) {
          booking = new NestedBuckets.Booking(tenant, k, check.estimate().length);
        } else {
          booking.reuse(tenant, k);
        }
      }
      long wait =
          buckets.admit(
              now,
              tenant,
              k,
              check.estimate(),
              check.reserve(),
              booking,
              maxWait == null ? -1 : maxWait.toNanos() / 1_000);
      if (wait < 0) {
        if (!fresh) {
          bookings.remove(request.booking());
        }
        waiting.purge(k, now);
        return Admission.Expired.of(
            Duration.ofNanos(-wait * 1_000), Objects.requireNonNull(maxWait));
      }
      if (wait > 0) {
        id = request.booking();
        if (fresh) {
          id = "b" + ++nextId;
          booking.expiresAt = now + buckets.derived().grantTtlMicros();
          bookings.put(id, booking);
          waiting.add(k, id, now);
        }
        waiting.purge(k, now);
        return new Admission.Deferred(Duration.ofNanos(wait * 1_000), Objects.requireNonNull(id));
      }
      if (!fresh) {
        bookings.remove(request.booking());
      }
      waiting.purge(k, now);
      long number = ++nextId;
      id = grants.id(number);
      booking.expiresAt = now + buckets.derived().grantTtlMicros();
      grants.put(number, booking);
      if (!plan.isEmpty()) {
        limits.debit(id, plan, epoch, epoch + buckets.derived().grantTtlMicros());
      }
      // Read under the lock: once released, the booking is handed to another call.
      debited =
          Arrays.equals(booking.debit, booking.estimate)
              ? request.cost()
              : Cost.of(dimensionNames, booking.debit);
    }
    return new Admission.Admitted(new Grant(id, tenant, priority, debited, false));
  }

  @Override
  public boolean release(Grant grant, Cost actual) {
    Objects.requireNonNull(grant, "grant");
    Objects.requireNonNull(actual, "actual");
    synchronized (this) {
      if (!actual.amountsIn(dimensionNames, releaseAmounts)) {
        throw new IllegalArgumentException(RequestCheck.problem(policy, actual, "actual"));
      }
      if (grant.failedOpen()) {
        return false;
      }
      NestedBuckets.Booking record = grants.remove(grant.id());
      long now = clock.nanoTime() / 1_000;
      // A grant is forgotten at its TTL exactly, as the Redis key's expiry does, whenever the
      // sweep runs.
      if (record == null || record.expiresAt <= now) {
        return false;
      }
      buckets.release(now, record, releaseAmounts);
      limits.release(grant.id(), releaseAmounts, calendar.epochNanos() / 1_000, adaptive(policy));
      if (spare.size() < SPARE_BOOKINGS) {
        spare.addFirst(record);
      }
      return true;
    }
  }

  @Override
  public void charge(Cost spent) {
    Objects.requireNonNull(spent, "spent");
    Policy policy = this.policy;
    double[] amounts = RequestCheck.amounts(policy, spent);
    if (amounts == null) {
      throw new IllegalArgumentException(RequestCheck.problem(policy, spent, "spent"));
    }
    synchronized (this) {
      long now = clock.nanoTime() / 1_000;
      if (ramping) {
        applyCaps(now);
      }
      buckets.charge(now, amounts);
    }
  }

  /**
   * A deferral of {@code waitMicros} decided before the rule (by the provider's retry-after or by
   * the limits), or {@code Expired} at once when that is past the call's {@code maxWait}; keeping
   * the booking the call presented (its place in line stays its own) or carrying a new one no rule
   * state stands behind (the next attempt is a first attempt).
   */
  private Admission deferral(
      long waitMicros, AdmissionRequest request, @Nullable Duration maxWait) {
    if (maxWait != null && waitMicros * 1_000 > maxWait.toNanos()) {
      return Admission.Expired.of(Duration.ofNanos(waitMicros * 1_000), maxWait);
    }
    String booking = request.booking();
    if (booking == null) {
      nextId++;
      booking = "l" + nextId;
    }
    return new Admission.Deferred(Duration.ofNanos(waitMicros * 1_000), booking);
  }

  /**
   * The answer for a call the limits hold: their rejection, their expiry, or a {@link #deferral}.
   */
  private Admission limitAnswer(
      LimitLedger.Verdict verdict, AdmissionRequest request, @Nullable Duration maxWait) {
    if (verdict.rejected() != null) {
      return verdict.rejected();
    }
    if (verdict.expired() != null) {
      return verdict.expired();
    }
    return deferral(verdict.waitMicros(), request, maxWait);
  }

  /** The adaptive concurrency limit of {@code policy}, or null when it has none. */
  private static Limits.@Nullable Adaptive adaptive(Policy policy) {
    Limits.Concurrency concurrency = policy.limits().concurrency();
    return concurrency == null ? null : concurrency.adaptive();
  }

  /**
   * The target's concurrency limit in force now: an adaptive limit's current value, else the fixed
   * {@code max_in_flight}; 0 without a concurrency limit.
   */
  public synchronized int concurrencyLimit() {
    Limits.Concurrency concurrency = policy.limits().concurrency();
    return concurrency == null ? 0 : limits.limitOf(concurrency);
  }

  /**
   * The latency the adaptive concurrency limit measured last at the target ({@link
   * Limits.Adaptive}: the one a call's deadline must cover), in µs; 0 when none is measured.
   */
  public synchronized long measuredLatencyMicros() {
    return limits.adaptiveState()[3];
  }

  /** Calls in flight under the policy's concurrency limit now (0 without one). */
  public synchronized int inFlight() {
    return limits.inFlight(calendar.epochNanos() / 1_000);
  }

  /**
   * Concurrency leases that expired unreleased since the gate started, counted when an admission or
   * a release under the concurrency limit finds them expired (as on Redis).
   */
  public synchronized long expiredLeases() {
    return limits.expiredLeases();
  }

  /**
   * What the limit counter {@code field} holds ({@code {window start µs, used, held}}; fields as
   * {@link LimitPlan.Counter#field()} names them), or null when it was never used.
   */
  public synchronized double @Nullable [] limitCounter(String field) {
    return limits.counter(field);
  }

  /** {@inheritDoc} In this gate's own state, at its calendar's time. */
  @Override
  public QuotaUse quotaUse(QuotaHolder holder) {
    Objects.requireNonNull(holder, "holder");
    Policy policy = this.policy;
    Limits.Quota quota = holder.requireQuota(policy);
    synchronized (this) {
      double[] counter = limits.counter(holder.counter(quota.period()));
      return counter == null
          ? QuotaUse.of(holder, quota, policy.limits().timeZone(), now(), Long.MIN_VALUE, 0, 0)
          : QuotaUse.of(
              holder,
              quota,
              policy.limits().timeZone(),
              now(),
              (long) counter[0],
              counter[1],
              counter[2]);
    }
  }

  /** {@inheritDoc} A hot update of this gate's policy ({@link #updatePolicy}). */
  @Override
  public synchronized AuditEntry setQuota(QuotaHolder holder, Limits.Quota quota, String actor) {
    Objects.requireNonNull(holder, "holder");
    Objects.requireNonNull(quota, "quota");
    AuditEntry.checkActor(actor);
    Policy policy = this.policy;
    holder.checkIn(policy);
    Limits.Quota own =
        holder.kind() == QuotaHolder.Kind.TENANT
            ? policy.limits().tenantQuotas().get(holder.name())
            : policy.limits().classQuotas().get(holder.name());
    Policy next = policy.withLimits(policy.limits().withQuota(holder, quota));
    AuditEntry entry =
        new AuditEntry(
            now(),
            actor,
            target(),
            AuditEntry.SET,
            holder.field(),
            own == null ? "none" : AuditEntry.describe(own),
            AuditEntry.describe(quota));
    updatePolicy(next);
    audit(entry);
    return entry;
  }

  /** {@inheritDoc} */
  @Override
  public synchronized AuditEntry resetQuota(QuotaHolder holder, String actor) {
    Objects.requireNonNull(holder, "holder");
    Policy policy = this.policy;
    Limits.Quota quota = holder.requireQuota(policy);
    AuditEntry.checkActor(actor);
    Instant at = now();
    Instant start = quota.period().start(at, policy.limits().timeZone());
    double[] before = limits.reset(holder.counter(quota.period()), micros(start));
    AuditEntry entry =
        new AuditEntry(
            at,
            actor,
            target(),
            AuditEntry.RESET,
            holder.field(),
            AuditEntry.used(before[0]),
            AuditEntry.used(0));
    audit(entry);
    return entry;
  }

  /**
   * The quota changes made through this gate, oldest first: the last {@value #AUDIT_ENTRIES}. Each
   * is also logged at INFO by the logger {@code io.backpressure.audit}.
   */
  @Override
  public synchronized List<AuditEntry> auditTrail() {
    return List.copyOf(audit);
  }

  private void audit(AuditEntry entry) {
    if (audit.size() == AUDIT_ENTRIES) {
      audit.pollFirst();
    }
    audit.addLast(entry);
    Audit.LOG.info("{}", entry.line());
  }

  /** The calendar's time now. */
  private Instant now() {
    long nanos = calendar.epochNanos();
    return Instant.ofEpochSecond(
        Math.floorDiv(nanos, 1_000_000_000L), Math.floorMod(nanos, 1_000_000_000L));
  }

  private static long micros(Instant instant) {
    return instant.getEpochSecond() * 1_000_000 + instant.getNano() / 1_000;
  }

  /** Bucket levels for metrics and inspection: a copy, consistent at one instant. */
  public synchronized GateLevels levels() {
    NestedBuckets.Snapshot s = buckets.snapshot();
    Policy policy = buckets.policy();
    Map<String, Double> global = new LinkedHashMap<>();
    for (int d = 0; d < s.global().length; d++) {
      global.put(policy.dimensions().get(d).name(), s.global()[d]);
    }
    Map<String, Map<String, Double>> classes = new LinkedHashMap<>();
    Map<String, Map<String, Double>> rates = new LinkedHashMap<>();
    Map<String, Integer> active = new LinkedHashMap<>();
    Map<String, Duration> ages = new LinkedHashMap<>();
    for (int k = 0; k < s.classLevels().length; k++) {
      Map<String, Double> levels = new HashMap<>();
      Map<String, Double> rate = new HashMap<>();
      for (int d = 0; d < s.global().length; d++) {
        levels.put(policy.dimensions().get(d).name(), s.classLevels()[k][d]);
        rate.put(policy.dimensions().get(d).name(), s.classUse()[k][d]);
      }
      String name = policy.priorities().get(k).name();
      classes.put(name, Map.copyOf(levels));
      rates.put(name, Map.copyOf(rate));
      active.put(name, s.activeQueues()[k]);
      long oldest = waiting.oldest(k);
      ages.put(name, Duration.ofNanos(oldest < 0 ? 0 : Math.max(0, s.micros() - oldest) * 1_000));
    }
    return new GateLevels(global, classes, rates, active, ages);
  }

  /**
   * The tenant-share bucket of the queue {@code (tenant, priority)}, or empty when that queue is
   * not active (never seen, or expired after its idle TTL).
   */
  public synchronized Optional<QueueState> queueState(String tenant, String priority) {
    int k = buckets.policy().priorityIndex(priority);
    return k < 0 ? Optional.empty() : Optional.ofNullable(buckets.queue(tenant, k));
  }

  /** Whether the booking {@code id} is still a call waiting for its turn at {@code now}. */
  private boolean waits(String id, long now) {
    NestedBuckets.Booking booking = bookings.get(id);
    return booking != null && booking.expiresAt > now;
  }

  /** Forgets expired grants and bookings; sweeps at most once per second (or per grant TTL). */
  private void expire(long now) {
    if (now < nextExpiry) {
      return;
    }
    nextExpiry = now + Math.min(1_000_000, policy.grantTtl().toNanos() / 1_000);
    grants.removeExpired(now);
    limits.expire(calendar.epochNanos() / 1_000);
    for (Iterator<NestedBuckets.Booking> it = bookings.values().iterator(); it.hasNext(); ) {
      if (it.next().expiresAt > now) {
        break;
      }
      it.remove();
    }
  }

  /**
   * A gate on {@code clock} that decides with {@code rule}, as {@link #createFairQueuing} does with
   * a new {@link FairRule}: for tests that watch a rule's decisions.
   */
  static InMemoryGate createWith(Policy policy, Ticker clock, AdmissionRule rule) {
    return new InMemoryGate(policy, clock, null, rule);
  }

  /** The rule this gate decides with (its state's read-out, {@link FairRuleSchema#read}). */
  AdmissionRule rule() {
    return buckets;
  }
}
