package io.backpressure.core;

import io.backpressure.core.feedback.ProviderSignal;
import java.time.DateTimeException;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * The limits of a target beyond its per-second caps: how many calls may be in flight at once, how
 * much of a dimension a calendar day or month may hold, and each tenant's or class's quota of
 * tokens or money per day or month. They are caps, not shares: the gate checks them in the same
 * atomic step as the admission rule, before it decides, and debits them only when it admits; they
 * know nothing of the tenants' fair order. A call they can never let through before the window
 * resets is answered at once {@link Admission.Rejected} with {@link RejectReason#LIMIT_REACHED} or
 * {@link RejectReason#QUOTA_EXHAUSTED} and the {@linkplain Admission.Rejected#resetAt() reset
 * instant}.
 *
 * <p>A value, safe to read from any thread. {@link #NONE} has no limit at all.
 *
 * @param concurrency the in-flight limit, or null for none
 * @param calendar caps per calendar window on dimensions of the policy, at most one per dimension
 *     and period
 * @param timeZone the zone whose midnights (and first days of the month) start the calendar windows
 *     of {@code calendar} and of every quota
 * @param price what one input and one output token cost, for quotas in {@link QuotaUnit#CURRENCY};
 *     null when no quota is in currency
 * @param tenantQuotas the quota of each named tenant
 * @param defaultTenantQuota the quota of every tenant not named in {@code tenantQuotas}, or null
 * @param classQuotas the quota of each named priority class, shared by all its tenants
 */
public record Limits(
    @Nullable Concurrency concurrency,
    List<Calendar> calendar,
    ZoneId timeZone,
    @Nullable Price price,
    Map<String, Quota> tenantQuotas,
    @Nullable Quota defaultTenantQuota,
    Map<String, Quota> classQuotas) {

  /** No limit beyond the per-second caps. */
  public static final Limits NONE =
      new Limits(null, List.of(), ZoneId.of("UTC"), null, Map.of(), null, Map.of());

  /** Most calls in flight a concurrency limit may allow. */
  public static final int MAX_IN_FLIGHT = 1_000_000;

  /** Shortest lease TTL. */
  public static final Duration MIN_LEASE_TTL = Duration.ofSeconds(1);

  /** Longest lease TTL: a call that runs longer than a day is not a model call. */
  public static final Duration MAX_LEASE_TTL = Duration.ofHours(24);

  /** Highest price of a million tokens. */
  public static final double MAX_PRICE = 1e6;

  public Limits {
    Objects.requireNonNull(timeZone, "timeZone");
    calendar = List.copyOf(Objects.requireNonNull(calendar, "calendar"));
    tenantQuotas = Map.copyOf(Objects.requireNonNull(tenantQuotas, "tenantQuotas"));
    classQuotas = Map.copyOf(Objects.requireNonNull(classQuotas, "classQuotas"));
    Set<String> seen = new HashSet<>();
    for (Calendar c : calendar) {
      if (!seen.add(c.dimension() + "/" + c.period())) {
        String field = "dimensions." + c.dimension() + "." + c.period().yamlName();
        throw new InvalidPolicyException(field, field + " is given twice");
      }
    }
    tenantQuotas.keySet().forEach(tenant -> PolicyChecks.name("quotas.tenants", tenant));
  }

  /** Whether there is any limit at all. */
  public boolean any() {
    return concurrency != null
        || !calendar.isEmpty()
        || !tenantQuotas.isEmpty()
        || defaultTenantQuota != null
        || !classQuotas.isEmpty();
  }

  /**
   * These limits with {@code holder}'s own quota set to {@code quota} (a tenant's own quota, not
   * the default tenant quota). The counters keep what they hold; a quota of another period counts
   * in its own counter, from zero. The result is checked against a policy when the policy is built
   * ({@link Policy#withLimits}).
   */
  public Limits withQuota(QuotaHolder holder, Quota quota) {
    Objects.requireNonNull(holder, "holder");
    Objects.requireNonNull(quota, "quota");
    Map<String, Quota> tenants = tenantQuotas;
    Map<String, Quota> classes = classQuotas;
    if (holder.kind() == QuotaHolder.Kind.TENANT) {
      tenants = new HashMap<>(tenantQuotas);
      tenants.put(holder.name(), quota);
    } else {
      classes = new HashMap<>(classQuotas);
      classes.put(holder.name(), quota);
    }
    return new Limits(concurrency, calendar, timeZone, price, tenants, defaultTenantQuota, classes);
  }

  /** The quota of {@code tenant}: its own, else the default tenant quota, else null. */
  public @Nullable Quota tenantQuota(String tenant) {
    Quota own = tenantQuotas.get(tenant);
    return own != null ? own : defaultTenantQuota;
  }

  /**
   * Checks the limits against the policy they belong to: every calendar cap on one of its
   * dimensions, every class quota and class concurrency limit on one of its classes, a quota in
   * tokens only with a {@code tokens} dimension, one in currency only with a price, a lease TTL no
   * longer than the grant TTL.
   *
   * @throws InvalidPolicyException naming the field at fault
   */
  void checkAgainst(List<String> dimensions, List<String> classes, Duration grantTtl) {
    for (Calendar c : calendar) {
      if (!dimensions.contains(c.dimension())) {
        String field = "dimensions." + c.dimension() + "." + c.period().yamlName();
        throw new InvalidPolicyException(
            field, field + " is on no dimension of the policy; known: " + dimensions);
      }
    }
    classQuotas.forEach(
        (name, quota) -> {
          if (!classes.contains(name)) {
            throw new InvalidPolicyException(
                "quotas.classes." + name,
                "quotas.classes."
                    + name
                    + " is a quota on a class the policy does not have; known: "
                    + classes);
          }
          quota.checkUnit("quotas.classes." + name, dimensions, price);
        });
    tenantQuotas.forEach(
        (name, quota) -> quota.checkUnit("quotas.tenants." + name, dimensions, price));
    if (defaultTenantQuota != null) {
      defaultTenantQuota.checkUnit("quotas.default_tenant", dimensions, price);
    }
    if (concurrency != null) {
      concurrency
          .classes()
          .keySet()
          .forEach(
              name -> {
                if (!classes.contains(name)) {
                  throw new InvalidPolicyException(
                      "concurrency.classes." + name,
                      "concurrency.classes."
                          + name
                          + " is a limit on a class the policy does not have; known: "
                          + classes);
                }
              });
    }
    if (concurrency != null && concurrency.leaseTtl().compareTo(grantTtl) > 0) {
      throw new InvalidPolicyException(
          "concurrency.lease_ttl",
          "concurrency.lease_ttl must be a duration in ["
              + MIN_LEASE_TTL.toSeconds()
              + "s, grant_ttl = "
              + grantTtl.toSeconds()
              + "s] (a release after the grant TTL finds no grant to end the lease with), got "
              + concurrency.leaseTtl().toMillis()
              + "ms");
    }
  }

  /**
   * How many calls may be in flight at once, at the target and, optionally, in each priority class
   * and for each tenant: a call takes one lease when it is admitted, held in every scope it belongs
   * to (the target, its class, its tenant), and gives it back when it is released (a stream at its
   * last chunk or its cancellation); a lease not given back within {@code leaseTtl} (a crashed
   * worker) expires by itself and is counted. A call is admitted only while every scope it belongs
   * to holds fewer leases than its limit.
   *
   * @param maxInFlight the target's limit, in {@code [1, 1000000]}; {@value #MAX_IN_FLIGHT} when
   *     only classes or tenants are limited
   * @param leaseTtl in {@code [1s, 24h]}, and at most the policy's grant TTL
   * @param classes the limit of each named priority class, shared by its tenants, each in {@code
   *     [1, 1000000]}
   * @param tenants the limit of each named tenant, each in {@code [1, 1000000]}
   * @param defaultTenant the limit of every tenant not named in {@code tenants}, or null for none
   * @param adaptive with an adaptive target limit, its law's bounds and latency target ({@code
   *     maxInFlight} is then its {@code max}); null for a fixed {@code maxInFlight}
   */
  public record Concurrency(
      int maxInFlight,
      Duration leaseTtl,
      Map<String, Integer> classes,
      Map<String, Integer> tenants,
      @Nullable Integer defaultTenant,
      @Nullable Adaptive adaptive) {
    /** The lease TTL when none is given. */
    public static final Duration DEFAULT_LEASE_TTL = Duration.ofSeconds(60);

    public Concurrency {
      inFlight("concurrency.max_in_flight", maxInFlight);
      if (adaptive != null && maxInFlight != adaptive.max()) {
        throw new InvalidPolicyException(
            "concurrency.max_in_flight",
            "concurrency.max_in_flight and concurrency.adaptive exclude each other: the adaptive"
                + " limit moves within [adaptive.min, adaptive.max] = ["
                + adaptive.min()
                + ", "
                + adaptive.max()
                + "], got max_in_flight "
                + maxInFlight);
      }
      if (leaseTtl == null
          || leaseTtl.compareTo(MIN_LEASE_TTL) < 0
          || leaseTtl.compareTo(MAX_LEASE_TTL) > 0) {
        throw new InvalidPolicyException(
            "concurrency.lease_ttl",
            "concurrency.lease_ttl must be a duration in [1s, 24h], got "
                + (leaseTtl == null ? "nothing" : leaseTtl.toMillis() + "ms"));
      }
      classes = Map.copyOf(Objects.requireNonNull(classes, "classes"));
      tenants = Map.copyOf(Objects.requireNonNull(tenants, "tenants"));
      classes.forEach((name, limit) -> inFlight("concurrency.classes." + name, limit));
      tenants.forEach(
          (name, limit) -> {
            PolicyChecks.name("concurrency.tenants", name);
            inFlight("concurrency.tenants." + name, limit);
          });
      if (defaultTenant != null) {
        inFlight("concurrency.default_tenant", defaultTenant);
      }
    }

    /** A fixed limit at the target and, optionally, limits of classes and tenants. */
    public Concurrency(
        int maxInFlight,
        Duration leaseTtl,
        Map<String, Integer> classes,
        Map<String, Integer> tenants,
        @Nullable Integer defaultTenant) {
      this(maxInFlight, leaseTtl, classes, tenants, defaultTenant, null);
    }

    /** A fixed limit at the target only. */
    public Concurrency(int maxInFlight, Duration leaseTtl) {
      this(maxInFlight, leaseTtl, Map.of(), Map.of(), null);
    }

    /** An adaptive limit at the target only. */
    public Concurrency(Adaptive adaptive, Duration leaseTtl) {
      this(adaptive.max(), leaseTtl, Map.of(), Map.of(), null, adaptive);
    }

    /** The limit of class {@code priority}'s leases, or null when the class has none. */
    public @Nullable Integer classLimit(String priority) {
      return classes.get(priority);
    }

    /** The limit of {@code tenant}'s leases: its own, else the default, else null. */
    public @Nullable Integer tenantLimit(String tenant) {
      Integer own = tenants.get(tenant);
      return own != null ? own : defaultTenant;
    }

    /** Whether a class or a tenant has a limit of its own. */
    public boolean scoped() {
      return !classes.isEmpty() || !tenants.isEmpty() || defaultTenant != null;
    }

    private static void inFlight(String field, int limit) {
      if (limit < 1 || limit > MAX_IN_FLIGHT) {
        throw new InvalidPolicyException(
            field, field + " must be a whole number in [1, " + MAX_IN_FLIGHT + "], got " + limit);
      }
    }
  }

  /**
   * An adaptive concurrency limit at the target: the number of calls allowed in flight moves
   * between {@code min} and {@code max} by additive increase and multiplicative decrease (AIMD),
   * the law of TCP's congestion avoidance (V. Jacobson, "Congestion Avoidance and Control", 1988;
   * RFC 5681, "TCP Congestion Control") as Netflix's concurrency-limits library applies it to calls
   * ({@code AIMDLimit}).
   *
   * <h2>The law</h2>
   *
   * The limit {@code L} starts at {@code min}. The gate measures each released call's latency on
   * the backend's clock, from its admission to its release, and hears the provider's answers
   * through {@link Gate#feedback}:
   *
   * <ul>
   *   <li><b>Additive increase</b>: a call released within {@code latencyTarget} while at least
   *       half the limit was in flight raises {@code L} by one, up to {@code max} ({@link
   *       #increased}). A limit mostly unused does not grow: it would only grow without bound and
   *       then be wrong when the load comes.
   *   <li><b>Multiplicative decrease</b>: a call released after more than {@code latencyTarget},
   *       the oldest call still in flight once it has been so for more than {@code latencyTarget}
   *       (seen by the next admission, and counted once: its release is then no sample), or an
   *       overload answer (a timeout or no answer, a 5xx, Anthropic's 529: {@link
   *       io.backpressure.core.feedback.ProviderSignal.Meaning#OVERLOADED} and {@link
   *       io.backpressure.core.feedback.ProviderSignal.Meaning#PROVIDER_ERROR}), halves {@code L},
   *       down to {@code min} ({@link #decreased}) — but at most once per {@code latencyTarget}
   *       ({@link #mayDecrease}): the calls that were in flight when the provider slowed all come
   *       back slow, and one slow spell must cost one halving per latency target, not one per call,
   *       as TCP halves its window once per round trip of losses.
   * </ul>
   *
   * <p>A worked example, {@code min 4, max 256, latencyTarget 1s}: calls of 0.2 s fill the limit
   * and raise it by one each, from 4 to 64 after 60 releases. The provider slows to 2 s: one second
   * later the oldest call is still in flight past the target and halves it to 32 (waiting for the
   * first slow release would take the whole 2 s, and a provider slowed to 20 s would be noticed
   * after 20 s), the next halving waits one second (16), then 8, then 4; calls still in flight past
   * the limit finish, and no new call goes until the in-flight count is below {@code L}. When the
   * provider recovers, each fast release adds one again.
   *
   * <h2>Deadlines: a call is sent only if it can be answered in time</h2>
   *
   * A slow provider is slow for every call sent to it, and a call answered after its caller gave up
   * wastes the capacity that is scarce ("queue only up to the point where a request could still
   * meet its deadline", {@code 002_9413b6b30a4881b0}). So the gate keeps the latency it has
   * measured at the target, {@code M}: the last released call's, from its admission to its release,
   * or the age of the oldest call in flight once it is overdue, if that is longer. A call whose
   * request gives a {@linkplain AdmissionRequest#deadline() deadline} {@code D} may wait for a
   * lease only {@link #spare D − M}; when that is negative the call is not sent but answered {@link
   * Admission.Expired} at once, unless no call at all is in flight at the target: then it goes as
   * the one probe that measures the provider again (TCP's loss window of one segment after a
   * retransmission timeout, RFC 5681 §3.1), since a gate that sent nothing would never learn that
   * the provider recovered. The floor {@code min} thus holds only for calls whose deadline covers
   * the measured latency; a call without a deadline, or before any latency is measured, is not held
   * by this rule.
   *
   * <p>In the worked example, callers that give up after 2 s: once a 2.2 s call is released, a new
   * call with its whole 2 s ahead is answered {@code Expired} at once while another call is in
   * flight; when the last one is released, the next call goes alone, and its latency decides
   * whether the others go again.
   *
   * <p>The limit and the latency are shared through the state, as the leases are: the in-memory
   * gate keeps them in its ledger, the Redis gate in the limits hash, read and written by the same
   * script call that checks or releases a lease. A value.
   *
   * @param min the lowest limit and the first, in {@code [1, 1000000]}
   * @param max the highest limit, in {@code [min, 1000000]}
   * @param latencyTarget the latency a released call must not exceed for the limit to grow, and the
   *     shortest time between two decreases; in {@code (0, 24h]}
   */
  public record Adaptive(int min, int max, Duration latencyTarget) {
    /** What a decrease multiplies the limit by (TCP's halving). */
    public static final double BACKOFF = 0.5;

    public Adaptive {
      Concurrency.inFlight("concurrency.adaptive.min", min);
      if (max < min || max > MAX_IN_FLIGHT) {
        throw new InvalidPolicyException(
            "concurrency.adaptive.max",
            "concurrency.adaptive.max must be a whole number in [adaptive.min = "
                + min
                + ", "
                + MAX_IN_FLIGHT
                + "], got "
                + max);
      }
      if (latencyTarget == null
          || latencyTarget.isNegative()
          || latencyTarget.isZero()
          || latencyTarget.compareTo(MAX_LEASE_TTL) > 0) {
        throw new InvalidPolicyException(
            "concurrency.adaptive.latency_target",
            "concurrency.adaptive.latency_target must be a duration in (0, 24h], got "
                + (latencyTarget == null ? "nothing" : latencyTarget.toMillis() + "ms"));
      }
    }

    /**
     * Whether the provider's answer {@code signal} is an overload this law decreases on: the
     * provider overloaded for everyone (a 529, a 503 that says so) or failing (another 5xx, no
     * answer: a timeout). A 429 is not one: it is about a cap, which the effective caps learn.
     */
    public static boolean decreasesOn(ProviderSignal signal) {
      return signal.meaning() == ProviderSignal.Meaning.OVERLOADED
          || signal.meaning() == ProviderSignal.Meaning.PROVIDER_ERROR;
    }

    /** The latency target in µs. */
    public long latencyTargetMicros() {
      return latencyTarget.toNanos() / 1_000;
    }

    /**
     * The limit in force given the stored one: {@code min} when none is stored (0), else the stored
     * one within {@code [min, max]} (the bounds may have changed since it was stored).
     */
    public int current(int stored) {
      if (stored < min) {
        return min;
      }
      return stored > max ? max : stored;
    }

    /**
     * The limit after a call released within the latency target while {@code inFlight} calls (the
     * released one included) held leases: one more, up to {@code max}, when at least half of {@code
     * limit} was in flight; else {@code limit}.
     */
    public int increased(int limit, long inFlight) {
      return 2 * inFlight >= limit && limit < max ? limit + 1 : limit;
    }

    /**
     * The limit after a decrease: {@code limit} times {@link #BACKOFF}, rounded down, at least min.
     */
    public int decreased(int limit) {
      int next = (int) Math.floor(limit * BACKOFF);
      return next < min ? min : next;
    }

    /**
     * How long a call with {@code deadlineMicros} left may still wait for a lease and be answered
     * in time when the target's calls take {@code latencyMicros} (µs): the difference; {@link
     * Long#MAX_VALUE} (no bound) when the call has no deadline (negative) or no latency is measured
     * yet (0). A negative result means the call cannot be answered in time even if sent now.
     */
    public static long spare(long deadlineMicros, long latencyMicros) {
      if (deadlineMicros < 0 || latencyMicros <= 0) {
        return Long.MAX_VALUE;
      }
      return deadlineMicros - latencyMicros;
    }

    /**
     * The answer for a call whose deadline ({@code deadlineMicros} left) does not cover the
     * target's measured latency ({@code latencyMicros}) after the {@code waitMicros} its lease
     * would take (µs).
     */
    public static Admission.Expired late(long deadlineMicros, long latencyMicros, long waitMicros) {
      return new Admission.Expired(
          Duration.ofNanos(waitMicros * 1_000),
          "the call could not be answered within its deadline of "
              + deadlineMicros / 1_000
              + " ms: the target's calls take "
              + latencyMicros / 1_000
              + " ms (the latency last measured)"
              + (waitMicros > 0
                  ? " and its turn for a lease comes in " + waitMicros / 1_000 + " ms"
                  : " and another call is in flight"));
    }

    /**
     * Whether a decrease may happen at {@code nowMicros} when the last one happened at {@code
     * lastMicros} (µs on the backend's clock; 0 when none has): once a latency target has passed.
     */
    public boolean mayDecrease(long lastMicros, long nowMicros) {
      return lastMicros == 0 || nowMicros - lastMicros >= latencyTargetMicros();
    }
  }

  /** The calendar periods a window may span. */
  public enum Period {
    /** From one midnight to the next, in the limits' time zone (23 or 25 hours on DST days). */
    DAY("per_day"),
    /** From the first day of a month at midnight to the first of the next. */
    MONTH("per_month");

    private final String yamlName;

    Period(String yamlName) {
      this.yamlName = yamlName;
    }

    /** The key the policy format gives it: {@code per_day} or {@code per_month}. */
    public String yamlName() {
      return yamlName;
    }

    /** The short name quotas take: {@code day} or {@code month}. */
    public String unitName() {
      return this == DAY ? "day" : "month";
    }

    /**
     * The start of the window that holds {@code instant} in {@code zone}: its local midnight (or
     * the first day of its month at midnight), or the first valid instant of that day when a DST
     * gap skips midnight.
     */
    public Instant start(Instant instant, ZoneId zone) {
      LocalDate day = instant.atZone(zone).toLocalDate();
      return (this == DAY ? day : day.withDayOfMonth(1)).atStartOfDay(zone).toInstant();
    }

    /** The end of the window that holds {@code instant} in {@code zone}: the next one's start. */
    public Instant end(Instant instant, ZoneId zone) {
      ZonedDateTime start = start(instant, zone).atZone(zone);
      LocalDate next =
          this == DAY ? start.toLocalDate().plusDays(1) : start.toLocalDate().plusMonths(1);
      return next.atStartOfDay(zone).toInstant();
    }
  }

  /**
   * A cap on one dimension per calendar window, counted exactly: everything the gate admitted of
   * the dimension since the window started (reconciled with the true usage on release) plus the
   * call's cost must stay within {@code limit}.
   *
   * @param dimension the dimension's name
   * @param period the window
   * @param limit the most the window may hold, in the dimension's units, in {@code (0, 1e15]}
   */
  public record Calendar(String dimension, Period period, double limit) {
    public Calendar {
      Objects.requireNonNull(dimension, "dimension");
      Objects.requireNonNull(period, "period");
      PolicyChecks.positive("dimensions." + dimension + "." + period.yamlName(), limit);
    }
  }

  /** What a quota counts. */
  public enum QuotaUnit {
    /** The calls' {@code tokens}, as reconciled on release. */
    TOKENS,
    /**
     * Money: input tokens at the input price plus output tokens at the output price ({@link
     * Price}). The input is the call's estimate; the output is what the call reserved beyond it,
     * and on release what it used beyond its estimate.
     */
    CURRENCY;

    /** The key the policy format gives it: {@code tokens} or {@code currency}. */
    public String yamlName() {
      return this == TOKENS ? "tokens" : "currency";
    }
  }

  /**
   * A budget per calendar window: a commercial plan, enforced exactly and terminally. Exhausting it
   * answers the tenant's (or class's) next call {@link RejectReason#QUOTA_EXHAUSTED} with the reset
   * instant; the others' shares are not affected.
   *
   * @param amount the budget, in tokens or in the price's currency, in {@code (0, 1e15]}
   * @param unit what it counts
   * @param period the window it renews in
   */
  public record Quota(double amount, QuotaUnit unit, Period period) {
    public Quota {
      Objects.requireNonNull(unit, "unit");
      Objects.requireNonNull(period, "period");
      PolicyChecks.positive("quotas." + unit.yamlName(), amount);
    }

    /** {@code tokens} tokens per calendar day. */
    public static Quota tokensPerDay(double tokens) {
      return new Quota(tokens, QuotaUnit.TOKENS, Period.DAY);
    }

    /** {@code tokens} tokens per calendar month. */
    public static Quota tokensPerMonth(double tokens) {
      return new Quota(tokens, QuotaUnit.TOKENS, Period.MONTH);
    }

    /** {@code amount} of the price's currency per calendar day. */
    public static Quota currencyPerDay(double amount) {
      return new Quota(amount, QuotaUnit.CURRENCY, Period.DAY);
    }

    /** {@code amount} of the price's currency per calendar month. */
    public static Quota currencyPerMonth(double amount) {
      return new Quota(amount, QuotaUnit.CURRENCY, Period.MONTH);
    }

    private void checkUnit(String field, List<String> dimensions, @Nullable Price price) {
      if (!dimensions.contains(Dimension.TOKENS)) {
        throw new InvalidPolicyException(
            field,
            field + " counts tokens, and the policy has no tokens dimension; known: " + dimensions);
      }
      if (unit == QuotaUnit.CURRENCY && price == null) {
        throw new InvalidPolicyException(
            field,
            field + " is in currency and the policy gives no quotas.price to convert tokens with");
      }
    }
  }

  /**
   * The target's model's price: what a million input tokens and a million output tokens cost, in
   * the currency the quotas are given in. Each in {@code [0, 1e6]}.
   */
  public record Price(double inputPerMillion, double outputPerMillion) {
    public Price {
      price("quotas.price.input_per_million", inputPerMillion);
      price("quotas.price.output_per_million", outputPerMillion);
    }

    /** The price of {@code input} input tokens and {@code output} output tokens. */
    public double of(double input, double output) {
      return (input * inputPerMillion + output * outputPerMillion) / 1e6;
    }

    private static void price(String field, double value) {
      if (!(value >= 0) || !(value <= MAX_PRICE)) {
        throw new InvalidPolicyException(
            field, field + " must be a number in [0, " + (long) MAX_PRICE + "], got " + value);
      }
    }
  }

  /**
   * The zone named {@code id}.
   *
   * @throws InvalidPolicyException naming {@code time_zone} when no such zone exists
   */
  public static ZoneId zone(String id) {
    try {
      return ZoneId.of(Objects.requireNonNull(id, "id"));
    } catch (DateTimeException e) {
      throw new InvalidPolicyException(
          "time_zone",
          "time_zone must be a region ID of the tz database (such as UTC, Europe/Paris or"
              + " America/Los_Angeles) or an offset such as +01:00, got '"
              + (id.length() > 60 ? id.substring(0, 60) + "…" : id)
              + "'",
          e);
    }
  }
}
