package io.backpressure.core.spi;

import io.backpressure.core.Admission;
import io.backpressure.core.Dimension;
import io.backpressure.core.Limits;
import io.backpressure.core.Policy;
import io.backpressure.core.RejectReason;
import java.time.Instant;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * What one call asks of its target's {@link Limits}: the counters it must fit into (calendar caps,
 * its tenant's and its class's quota), with the call's cost and held part in each counter's units,
 * and whether a concurrency lease is needed. Both backends decide from the same plan: the in-memory
 * {@code LimitLedger} and {@code limits.lua}, to which the Redis gate sends the plan's numbers, so
 * no policy lookup, price or time zone is needed inside Redis.
 *
 * <h2>The counters, and why they are exact</h2>
 *
 * Each counter is a pair {@code (used, held)} for one calendar window, keyed by its field name:
 * {@code used} is what the window holds (admitted calls' costs, corrected to their true usage on
 * release), {@code held} the part of it that outstanding calls reserved beyond their estimate
 * (reservation mode's {@code max_tokens}) and may give back. A call of cost {@code c} fits when
 * {@code used + c ≤ limit}. When it does not, but would once every outstanding reservation came
 * back ({@code used − held + c ≤ limit}), it is deferred for {@link #POLL_MICROS}; otherwise
 * nothing can make room before the window ends, and the call is answered {@link Admission.Rejected}
 * at once with the window's end as its reset instant. A counter whose stored window is not the
 * current one starts from zero. A release adds {@code actual − cost} to {@code used} and takes the
 * call's {@code held} back, in the window the call was admitted in only: a call admitted before
 * midnight and released after it changes nothing in the new day. {@code used} never goes below
 * zero: only an administrator's reset of the counter ({@code LimitLedger.reset}) can leave it
 * holding less than a call in flight corrects.
 *
 * <p>Units: a calendar cap counts its dimension; a quota counts tokens, or money: input tokens (the
 * call's estimate) at the input price plus output tokens (what the call reserved beyond its
 * estimate; on release, what it used beyond its estimate) at the output price ({@link
 * Limits.Price}).
 *
 * <h2>Calendar windows across backends</h2>
 *
 * The windows come from {@code java.time}: a day runs from one local midnight of the limits' zone
 * to the next (23 or 25 hours on DST days), a month from the first day at midnight. Redis's Lua has
 * no time zone database, so the Redis gate computes the boundaries in Java, four per period around
 * its own clock ({@link #boundaries}: the previous window's start, the current one's start and end,
 * the next one's end), and the script picks the window that holds the server's time; clocks a few
 * seconds apart still agree on the window at midnight.
 *
 * <p>Backend SPI ({@linkplain io.backpressure.core.spi the package} says what that promises): a
 * backend builds the plan with {@link #of} and checks, debits and releases its counters as {@code
 * LimitLedger} does in memory. A value.
 *
 * <h2>Concurrency scopes</h2>
 *
 * Under a concurrency limit the call's lease counts at the target and in two scopes: its class's
 * and its tenant's ({@link #scopes}). Both are counted whether or not they have a limit of their
 * own, so a limit set by a hot update counts the leases already held. A call waits while any scope
 * it belongs to is full, for the time until the earliest lease of the target expires but at most
 * {@link #POLL_MICROS}: the earliest lease anywhere expires no later than the earliest of the full
 * scope, so the call never sleeps past a lease that could make room.
 *
 * @param counters the counters the call must fit into, calendar caps first, then its tenant's and
 *     its class's quota
 * @param concurrency the target's in-flight limit, or null for none
 * @param scopes with a concurrency limit, the call's class scope, then its tenant scope; else empty
 * @param zone the zone of the calendar windows
 */
public record LimitPlan(
    List<Counter> counters,
    Limits.@Nullable Concurrency concurrency,
    List<Scope> scopes,
    ZoneId zone) {

  /**
   * How long a call waits when only a limit holds it and no completion can be predicted: a full
   * concurrency scope whose earliest lease expires later, or a counter that outstanding
   * reservations may make room in. 250 ms, in µs.
   */
  public static final long POLL_MICROS = 250_000;

  /**
   * One counter the call must fit into.
   *
   * @param field the counter's name in the state: {@code d:<dimension>:<day|month>}, {@code
   *     t:<day|month>:<tenant>} or {@code k:<day|month>:<class>}
   * @param label the policy field that set it, for messages: {@code dimensions.tokens.per_day},
   *     {@code quotas.tenants.acme}, {@code quotas.default_tenant}, {@code quotas.classes.P3}
   * @param reason the rejection when the call cannot fit before the reset
   * @param period the counter's window
   * @param limit the most the window may hold
   * @param dimension the index of the dimension counted (for a quota, tokens)
   * @param price for a quota in money, the price; null when the counter counts its dimension
   * @param estimate the call's estimate of the dimension (its input tokens, for money)
   * @param cost what the call adds to the counter at admission
   * @param hold the part of {@code cost} the call reserved beyond its estimate
   */
  public record Counter(
      String field,
      String label,
      RejectReason reason,
      Limits.Period period,
      double limit,
      int dimension,
      Limits.@Nullable Price price,
      double estimate,
      double cost,
      double hold) {

    /** What the call really cost, in the counter's units, from the dimension's actual amount. */
    public double actualCost(double actual) {
      if (price == null) {
        return actual;
      }
      double input = actual < estimate ? actual : estimate;
      double output = actual - estimate > 0 ? actual - estimate : 0;
      return price.of(input, output);
    }
  }

  /**
   * A concurrency scope the call's lease counts in besides the target.
   *
   * @param field the scope's lease count in the state: {@code in:k:<class>} or {@code
   *     in:t:<tenant>}
   * @param label the policy field of its limit, for messages: {@code concurrency.classes.P1},
   *     {@code concurrency.tenants.acme}, {@code concurrency.default_tenant}
   * @param maxInFlight its limit, or 0 when it has none (its leases are counted all the same)
   */
  public record Scope(String field, String label, int maxInFlight) {}

  private static final LimitPlan NONE = new LimitPlan(List.of(), null, List.of(), ZoneId.of("UTC"));

  /** The plan of nothing but the calendar windows of {@code zone}, for reading counters. */
  public static LimitPlan windowsOf(ZoneId zone) {
    return new LimitPlan(List.of(), null, List.of(), zone);
  }

  /** Whether the call has nothing to fit into. */
  public boolean isEmpty() {
    return counters.isEmpty() && concurrency == null;
  }

  /**
   * The plan of a call of class {@code k} for {@code tenant} with the given estimate and, in
   * reservation mode, reservation (both as {@link RequestCheck} resolves them).
   */
  public static LimitPlan of(
      Policy policy, String tenant, int k, double[] estimate, double @Nullable [] reserve) {
    Limits limits = policy.limits();
    if (!limits.any()) {
      return NONE;
    }
    double[] basis = reserve != null ? reserve : estimate;
    List<Counter> counters = new ArrayList<>();
    for (Limits.Calendar c : limits.calendar()) {
      int d = policy.dimensionIndex(c.dimension());
      counters.add(
          new Counter(
              "d:" + c.dimension() + ":" + c.period().unitName(),
              "dimensions." + c.dimension() + "." + c.period().yamlName(),
              RejectReason.LIMIT_REACHED,
              c.period(),
              c.limit(),
              d,
              null,
              estimate[d],
              basis[d],
              basis[d] - estimate[d]));
    }
    int t = policy.dimensionIndex(Dimension.TOKENS);
    Limits.Quota own = limits.tenantQuotas().get(tenant);
    Limits.Quota tenantQuota = own != null ? own : limits.defaultTenantQuota();
    if (tenantQuota != null) {
      counters.add(
          quota(
              tenantField(tenantQuota.period(), tenant),
              own != null ? "quotas.tenants." + tenant : "quotas.default_tenant",
              tenantQuota,
              limits.price(),
              t,
              estimate,
              basis));
    }
    String priority = policy.priorities().get(k).name();
    Limits.Quota classQuota = limits.classQuotas().get(priority);
    if (classQuota != null) {
      counters.add(
          quota(
              classField(classQuota.period(), priority),
              "quotas.classes." + priority,
              classQuota,
              limits.price(),
              t,
              estimate,
              basis));
    }
    Limits.Concurrency concurrency = limits.concurrency();
    List<Scope> scopes = List.of();
    if (concurrency != null) {
      Integer classLimit = concurrency.classLimit(priority);
      Integer tenantLimit = concurrency.tenantLimit(tenant);
      scopes =
          List.of(
              new Scope(
                  classLeases(priority),
                  "concurrency.classes." + priority,
                  classLimit == null ? 0 : classLimit),
              new Scope(
                  tenantLeases(tenant),
                  concurrency.tenants().containsKey(tenant)
                      ? "concurrency.tenants." + tenant
                      : "concurrency.default_tenant",
                  tenantLimit == null ? 0 : tenantLimit));
    }
    return new LimitPlan(List.copyOf(counters), concurrency, scopes, limits.timeZone());
  }

  /** The lease count of class {@code priority}: {@code in:k:<class>}. */
  public static String classLeases(String priority) {
    return "in:k:" + priority;
  }

  /** The lease count of {@code tenant}: {@code in:t:<tenant>}. */
  public static String tenantLeases(String tenant) {
    return "in:t:" + tenant;
  }

  /** The counter of {@code tenant}'s quota per {@code period}: {@code t:<day|month>:<tenant>}. */
  public static String tenantField(Limits.Period period, String tenant) {
    return "t:" + period.unitName() + ":" + tenant;
  }

  /**
   * The counter of class {@code priority}'s quota per {@code period}: {@code
   * k:<day|month>:<class>}.
   */
  public static String classField(Limits.Period period, String priority) {
    return "k:" + period.unitName() + ":" + priority;
  }

  private static Counter quota(
      String field,
      String label,
      Limits.Quota quota,
      Limits.@Nullable Price price,
      int t,
      double[] estimate,
      double[] basis) {
    double reserved = basis[t] - estimate[t];
    Limits.Price money = quota.unit() == Limits.QuotaUnit.CURRENCY ? price : null;
    if (money == null) {
      return new Counter(
          field,
          label,
          RejectReason.QUOTA_EXHAUSTED,
          quota.period(),
          quota.amount(),
          t,
          null,
          estimate[t],
          basis[t],
          reserved);
    }
    return new Counter(
        field,
        label,
        RejectReason.QUOTA_EXHAUSTED,
        quota.period(),
        quota.amount(),
        t,
        money,
        estimate[t],
        money.of(estimate[t], reserved),
        money.of(0, reserved));
  }

  /**
   * The four window boundaries of {@code period} around {@code epochMicros}, in µs since the epoch:
   * the previous window's start, the current one's start and end, and the next one's end.
   */
  public long[] boundaries(Limits.Period period, long epochMicros) {
    Instant now = instantOf(epochMicros);
    Instant start = period.start(now, zone);
    Instant end = period.end(now, zone);
    Instant previous = period.start(start.minusNanos(1), zone);
    Instant next = period.end(end, zone);
    return new long[] {micros(previous), micros(start), micros(end), micros(next)};
  }

  /** The window {@code [start, end)} of {@code period} that holds {@code epochMicros}. */
  public long[] window(Limits.Period period, long epochMicros) {
    Instant now = instantOf(epochMicros);
    return new long[] {micros(period.start(now, zone)), micros(period.end(now, zone))};
  }

  /** The rejection for a call that counter {@code c} cannot hold before {@code resetMicros}. */
  public static Admission.Rejected rejection(Counter c, double used, long resetMicros) {
    Instant reset = instantOf(resetMicros);
    return new Admission.Rejected(
        c.reason(),
        c.label()
            + " = "
            + fmt(c.limit())
            + (c.price() != null ? " (money)" : "")
            + " per "
            + c.period().unitName()
            + " holds "
            + fmt(used)
            + " already and cannot take "
            + fmt(c.cost())
            + " more before it resets at "
            + reset,
        reset);
  }

  /**
   * The rejection for a call to {@code target} while its provider has stopped it ({@code
   * EffectiveCaps.stoppedUntil}: a spend limit, a per-day quota) until {@code resetMicros} (µs
   * since the epoch).
   */
  public static Admission.Rejected providerStopped(String target, long resetMicros) {
    Instant reset = instantOf(resetMicros);
    return new Admission.Rejected(
        RejectReason.LIMIT_REACHED,
        "the provider of "
            + target
            + " said its quota is spent (a per-day quota or a spend limit) until "
            + reset,
        reset);
  }

  /** The rejection for a cost larger than counter {@code c}'s whole limit: no reset helps. */
  public static Admission.Rejected neverFits(Counter c) {
    return new Admission.Rejected(
        RejectReason.NEVER_FITS,
        "the call costs "
            + fmt(c.cost())
            + " of "
            + c.label()
            + ", more than its whole limit per "
            + c.period().unitName()
            + "; allowed range [0, "
            + fmt(c.limit())
            + "]");
  }

  private static String fmt(double x) {
    return x == Math.rint(x) && Math.abs(x) < 1e15 ? Long.toString((long) x) : Double.toString(x);
  }

  private static Instant instantOf(long epochMicros) {
    return Instant.ofEpochSecond(
        Math.floorDiv(epochMicros, 1_000_000), Math.floorMod(epochMicros, 1_000_000) * 1_000L);
  }

  private static long micros(Instant instant) {
    return instant.getEpochSecond() * 1_000_000 + instant.getNano() / 1_000;
  }
}
