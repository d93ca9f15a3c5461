package io.backpressure.core;

import io.backpressure.core.feedback.FeedbackPolicy;
import java.time.Duration;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * The caps, weights and options of one target's gate. Immutable; build one with {@link
 * #builder(String)}, or read a YAML file with {@code PolicyYaml} (module {@code
 * backpressure-policy-yaml}, so that this module needs no parser). Every value is range-checked on
 * entry and a bad one throws {@link InvalidPolicyException} naming the field.
 *
 * @param target the target's name, e.g. {@code openai/gpt-4o}
 * @param dimensions the capped dimensions, at least one, names unique
 * @param priorities the priority classes, highest first, names unique
 * @param tenantWeights weights {@code w_t} of named tenants
 * @param defaultTenantWeight the weight of every tenant not named
 * @param reservation whether to debit {@code tokens + max_tokens} at admission and refund later
 * @param defaultMaxTokens the completion bound reserved for requests that carry none
 * @param idleTtl how long a queue with no admission attempts stays active before it drops out of
 *     the fair-share sums
 * @param safeWindow the provider's accounting period when the gate should never admit more than
 *     {@code C_d} times its length in any window of that length, however aligned; {@code null} for
 *     the bucket bound {@code C_d·T + B_d} alone. The builder and the YAML default it to the
 *     provider's period when that is known (a cap given per minute); {@link #withSendMargin} widens
 *     it for the variation of the send delay
 * @param shareHorizon the time over which class and queue shares are measured and banked: an
 *     under-using class or queue banks at most this much of its rate, and usage is averaged over it
 * @param grantTtl how long an unreleased grant or an unredeemed booking is remembered
 * @param priorityMode how classes share the cap: weighted shares ({@link PriorityMode#SHARED}) or
 *     strictly in order ({@link PriorityMode#STRICT})
 * @param feedback how the gate learns effective caps from the provider's answers
 * @param limits the limits beyond the per-second caps: concurrency, calendar windows, quotas
 *     ({@link Limits#NONE} for none)
 */
public record Policy(
    String target,
    List<Dimension> dimensions,
    List<PriorityClass> priorities,
    Map<String, Double> tenantWeights,
    double defaultTenantWeight,
    boolean reservation,
    long defaultMaxTokens,
    Duration idleTtl,
    @Nullable Duration safeWindow,
    Duration shareHorizon,
    Duration grantTtl,
    PriorityMode priorityMode,
    FeedbackPolicy feedback,
    Limits limits) {

  public Policy {
    Objects.requireNonNull(feedback, "feedback");
    Objects.requireNonNull(limits, "limits");
    PolicyChecks.name("target", target);
    dimensions = List.copyOf(Objects.requireNonNull(dimensions, "dimensions"));
    priorities = List.copyOf(Objects.requireNonNull(priorities, "priorities"));
    tenantWeights = Map.copyOf(Objects.requireNonNull(tenantWeights, "tenantWeights"));
    if (dimensions.isEmpty()) {
      throw new InvalidPolicyException(
          "dimensions", "dimensions must name at least one capped dimension");
    }
    if (priorities.isEmpty()) {
      throw new InvalidPolicyException("priorities", "priorities must name at least one class");
    }
    unique("dimensions", dimensions.stream().map(Dimension::name).toList());
    unique("priorities", priorities.stream().map(PriorityClass::name).toList());
    tenantWeights.forEach(
        (tenant, weight) -> {
          PolicyChecks.name("tenants.weights", tenant);
          PolicyChecks.positive("tenants.weights." + tenant, weight);
        });
    PolicyChecks.positive("tenants.default_weight", defaultTenantWeight);
    if (defaultMaxTokens < 1 || defaultMaxTokens > 10_000_000) {
      throw new InvalidPolicyException(
          "reservation.default_max_tokens",
          "reservation.default_max_tokens must be in [1, 10000000], got " + defaultMaxTokens);
    }
    within("idle_ttl", idleTtl, MIN_TTL, MAX_IDLE_TTL);
    within("share_horizon", shareHorizon, MIN_TTL, MAX_WINDOW);
    within("grant_ttl", grantTtl, MIN_GRANT_TTL, MAX_GRANT_TTL);
    if (safeWindow != null) {
      within("safe_window", safeWindow, MIN_TTL, MAX_WINDOW);
    }
    int requests = dimensions.stream().map(Dimension::name).toList().indexOf(Dimension.REQUESTS);
    if (requests >= 0) {
      Dimension d = dimensions.get(requests);
      if (d.burst() < 1) {
        throw new InvalidPolicyException(
            "dimensions.requests.burst",
            "dimensions.requests.burst must be at least 1 "
                + "(one request costs 1, so no request could ever be admitted), in [1, 1e15]; got "
                + d.burst());
      }
      if (safeWindow != null && d.capPerSecond() * safeWindow.toNanos() / 1e9 < 1) {
        throw new InvalidPolicyException(
            "safe_window",
            "safe_window must be long enough for the requests cap to "
                + "allow one request in it (at least "
                + Math.ceil(1e3 / d.capPerSecond())
                + " ms at "
                + d.capPerSecond()
                + "/s), got "
                + safeWindow.toMillis()
                + " ms");
      }
    }
    if (priorityMode == null) {
      throw new InvalidPolicyException(
          "priority_mode", "priority_mode must be one of shared, strict, got null");
    }
    limits.checkAgainst(
        dimensions.stream().map(Dimension::name).toList(),
        priorities.stream().map(PriorityClass::name).toList(),
        grantTtl);
  }

  /** Shortest idle TTL, share horizon and safe window. */
  private static final Duration MIN_TTL = Duration.ofMillis(1);

  /** Longest share horizon and safe window: providers account per second or per minute. */
  private static final Duration MAX_WINDOW = Duration.ofHours(1);

  private static final Duration MAX_IDLE_TTL = Duration.ofHours(24);

  /** The field a send margin's errors name, as the policy format spells it. */
  private static final String SEND_MARGIN = "send_margin";

  private static final Duration ONE_MINUTE = Duration.ofMinutes(1);

  /**
   * The safe window divided by this is {@link #sendWithin()}, how long an admitted call may take to
   * be sent: one twentieth, so that the send delays of calls sent in time vary by at most 5 % of
   * the window, the requests headroom docs/deploying.md advises.
   */
  static final int SEND_WITHIN_PARTS = 20;

  private static final Duration MIN_GRANT_TTL = Duration.ofSeconds(1);

  /** Longest grant TTL: a call that runs longer than a day is not a model call. */
  private static final Duration MAX_GRANT_TTL = Duration.ofHours(24);

  private static void unique(String field, List<String> names) {
    Set<String> seen = new HashSet<>();
    for (String name : names) {
      if (!seen.add(name)) {
        throw new InvalidPolicyException(field, field + " names '" + name + "' twice");
      }
    }
  }

  private static void within(String field, Duration value, Duration min, Duration max) {
    if (value == null || value.compareTo(min) < 0 || value.compareTo(max) > 0) {
      throw new InvalidPolicyException(
          field,
          field
              + " must be a duration in ["
              + text(min)
              + ", "
              + text(max)
              + "], got "
              + (value == null ? "nothing" : text(value)));
    }
  }

  /** A duration as the policy format writes it, e.g. {@code 1ms}, {@code 24h}. */
  private static String text(Duration d) {
    if (d.toNanos() % 3_600_000_000_000L == 0 && !d.isZero()) {
      return d.toHours() + "h";
    }
    if (d.toNanos() % 1_000_000_000L == 0 && !d.isZero()) {
      return d.toSeconds() + "s";
    }
    return d.toNanos() % 1_000_000 == 0 ? d.toMillis() + "ms" : d.toString();
  }

  /** A builder for the target's policy, with the defaults documented on each setter. */
  public static Builder builder(String target) {
    return new Builder(target);
  }

  /** The weight {@code w_t} of {@code tenant}. */
  public double tenantWeight(String tenant) {
    Double weight = tenantWeights.get(tenant);
    return weight == null ? defaultTenantWeight : weight;
  }

  /** The index of the dimension named {@code name}, or -1. */
  public int dimensionIndex(String name) {
    for (int i = 0; i < dimensions.size(); i++) {
      if (dimensions.get(i).name().equals(name)) {
        return i;
      }
    }
    return -1;
  }

  /** The index of the priority class named {@code name} (0 is the highest), or -1. */
  public int priorityIndex(String name) {
    for (int i = 0; i < priorities.size(); i++) {
      if (priorities.get(i).name().equals(name)) {
        return i;
      }
    }
    return -1;
  }

  /**
   * This policy with the parts a hot update or a send margin may change replaced; everything else
   * kept.
   */
  private Policy with(
      List<Dimension> dims,
      List<PriorityClass> classes,
      Map<String, Double> weights,
      @Nullable Duration window,
      FeedbackPolicy feedback) {
    return new Policy(
        target,
        dims,
        classes,
        weights,
        defaultTenantWeight,
        reservation,
        defaultMaxTokens,
        idleTtl,
        window,
        shareHorizon,
        grantTtl,
        priorityMode,
        feedback,
        limits);
  }

  /** This policy with a dimension's cap and burst replaced (a hot update). */
  public Policy withDimension(Dimension replacement) {
    List<Dimension> dims = new ArrayList<>(dimensions);
    int i = dimensionIndex(replacement.name());
    if (i < 0) {
      throw new InvalidPolicyException(
          "dimensions",
          "no dimension named '" + replacement.name() + "'; known: " + dimensionNames());
    }
    dims.set(i, replacement);
    return with(dims, priorities, tenantWeights, safeWindow, feedback);
  }

  /** This policy with a class weight replaced (a hot update). */
  public Policy withPriorityWeight(String priority, double weight) {
    int i = priorityIndex(priority);
    if (i < 0) {
      throw new InvalidPolicyException(
          "priorities", "no priority class named '" + priority + "'; known: " + priorityNames());
    }
    List<PriorityClass> classes = new ArrayList<>(priorities);
    classes.set(i, new PriorityClass(priority, weight, priorities.get(i).maxWait()));
    return with(dimensions, classes, tenantWeights, safeWindow, feedback);
  }

  /** This policy with a tenant's weight set (a hot update). */
  public Policy withTenantWeight(String tenant, double weight) {
    Map<String, Double> weights = new HashMap<>(tenantWeights);
    weights.put(tenant, weight);
    return with(dimensions, priorities, weights, safeWindow, feedback);
  }

  /** This policy with other limits beyond the per-second caps. */
  public Policy withLimits(Limits next) {
    return new Policy(
        target,
        dimensions,
        priorities,
        tenantWeights,
        defaultTenantWeight,
        reservation,
        defaultMaxTokens,
        idleTtl,
        safeWindow,
        shareHorizon,
        grantTtl,
        priorityMode,
        feedback,
        next);
  }

  /** This policy with other feedback parameters. */
  public Policy withFeedback(FeedbackPolicy next) {
    return with(dimensions, priorities, tenantWeights, safeWindow, next);
  }

  /**
   * How long after its admission an admitted call may still be sent, or null when the policy has no
   * safe window: one {@value #SEND_WITHIN_PARTS}th of {@link #safeWindow()} (50 ms on a one-second
   * window, 3 s on a per-minute one). The gated clients and framework decorators check it at the
   * last point before the request leaves that they can see, and a call later than this releases its
   * grant unused and asks the gate again, so that the delay between admission and the provider's
   * count stays within it.
   *
   * <p>Why a bound and why this one: the gate bounds admissions in its own time, the provider
   * counts arrivals. When the send delays of calls vary by {@code J}, a provider window of {@code
   * P} holds the admissions of up to {@code P + J} (see {@link #withSendMargin}); a cold client
   * whose first calls take seconds to leave puts calls admitted in different windows into one.
   * Calls sent within {@code W/20} of their admission vary by at most that, which at the cap's pace
   * is 5 % of a window's allowance: the headroom docs/deploying.md advises below the provider's
   * request cap, and the feedback's own. A longer bound lets a slow first send crowd a window; a
   * shorter one sends calls back to the gate for the ordinary jitter of a loaded machine.
   */
  public @Nullable Duration sendWithin() {
    return safeWindow == null ? null : safeWindow.dividedBy(SEND_WITHIN_PARTS);
  }

  /**
   * This policy with a margin {@code m} for the variation of the send delay: the safe window
   * widened from {@code P} to {@code P + m} and every dimension's cap scaled by {@code P / (P +
   * m)}, so that the window's allowance {@code C_d·P} is unchanged; bursts unchanged. {@code this}
   * when the margin is zero.
   *
   * <p>Why. The safe window holds the cap in the gate's own time: no window of the provider's
   * period {@code P} holds more than {@code C_d·P} admissions. The provider counts arrivals, each
   * an admission plus the delay until the request reaches it (the client's serialisation, a pooled
   * connection, the network), and that delay varies from call to call. When the delays of the calls
   * in one window vary by {@code J}, the arrivals of a provider window of {@code P} come from
   * admissions spread over up to {@code P + J}, which can hold more than {@code C_d·P}: the gate
   * frees a slot exactly one period after an admission and a deferred call comes back at that
   * instant, so a call that reaches the provider late and the one admitted a period after it, which
   * reaches it early, can fall into one provider window with the whole allowance between them. With
   * the margin, every window of {@code P + m} holds at most {@code C_d·P} admissions, and the
   * arrivals of any provider window of {@code P} come from such a window while the delays vary by
   * at most {@code m}: no provider window sees more than the cap, whatever the state did before
   * (after a lost state too, as long as the buckets restart empty).
   *
   * <p>Worked example: a cap of 10 requests per second on a provider's one-second window, {@code m
   * = 100 ms}. The safe window becomes 1.1 s, the cap 10/1.1 ≈ 9.09 per second, and any 1.1 s holds
   * at most 10 admissions, so a provider second holds at most 10 arrivals while the send delays of
   * its calls differ by at most 100 ms. The price is the same factor on throughput: at most 1/1.1
   * of the cap, about 9.1 % less. This is the headroom docs/deploying.md advises (Headroom: set
   * caps below the provider's), in the form whose bound can be proved; the margin should cover the
   * spread of the send delays the deployment measures, not their mean.
   *
   * <p>The policy keeps no margin field: the result <em>is</em> the widened policy, so {@code
   * PolicyYaml.render} writes the widened window and the scaled caps (and reads back to an equal
   * policy), and {@link #safeWindow()} and {@link Dimension#capPerSecond()} report them. A later
   * hot update ({@link #withDimension}) sets the cap it is given, not scaled again: give the scaled
   * figure, or build the policy again with the margin.
   *
   * <p>A cap is scaled up by a few ulps where rounding would otherwise leave the window's allowance
   * a hair below {@code C_d·P}, so that a call of exactly the allowance still fits.
   *
   * @param margin how much the send delay may vary, in {@code [0, safeWindow]} (and the widened
   *     window at most 1 h)
   * @throws InvalidPolicyException naming {@code send_margin} when the margin is null, negative or
   *     longer than the safe window, or this policy has no safe window (without one the gate bounds
   *     no window to the cap, so there is nothing to widen)
   */
  public Policy withSendMargin(Duration margin) {
    if (margin != null && margin.isZero()) {
      return this;
    }
    if (margin == null || margin.isNegative()) {
      throw sendMarginOutOfRange(margin, safeWindow);
    }
    if (safeWindow == null) {
      throw new InvalidPolicyException(
          SEND_MARGIN,
          "send_margin needs a safe_window: it widens the safe window (the provider's period), and"
              + " this policy has none; give safe_window, or leave send_margin out");
    }
    Duration longest = MAX_WINDOW.minus(safeWindow);
    if (margin.compareTo(safeWindow) > 0 || margin.compareTo(longest) > 0) {
      throw sendMarginOutOfRange(margin, safeWindow);
    }
    Duration widened = safeWindow.plus(margin);
    List<Dimension> scaled = new ArrayList<>(dimensions.size());
    for (Dimension d : dimensions) {
      scaled.add(
          new Dimension(d.name(), scaledCap(d.capPerSecond(), safeWindow, widened), d.burst()));
    }
    return with(scaled, priorities, tenantWeights, widened, feedback);
  }

  /**
   * The error for a send margin outside {@code [0, safe_window]}: the range with the safe window's
   * length when {@code window} is known, else with its name.
   */
  private static InvalidPolicyException sendMarginOutOfRange(
      @Nullable Duration margin, @Nullable Duration window) {
    String range;
    if (window == null) {
      range = "[0, safe_window]";
    } else if (window.compareTo(MAX_WINDOW.minus(window)) <= 0) {
      range = "[0, " + text(window) + "] (at most safe_window)";
    } else {
      range =
          "[0, "
              + text(MAX_WINDOW.minus(window))
              + "] (safe_window plus send_margin at most "
              + text(MAX_WINDOW)
              + ")";
    }
    return new InvalidPolicyException(
        SEND_MARGIN,
        "send_margin must be a duration in "
            + range
            + ", got "
            + (margin == null ? "nothing" : text(margin)));
  }

  /**
   * {@code cap · P / (P + m)}, rounded up until the widened window's allowance, computed as the
   * checks compute it ({@code cap · window / 1 s}), is no less than {@code cap · P}.
   */
  private static double scaledCap(double cap, Duration period, Duration widened) {
    long periodNanos = period.toNanos();
    long widenedNanos = widened.toNanos();
    double allowance = cap * periodNanos / 1e9;
    double scaled = cap * periodNanos / widenedNanos;
    while (scaled * widenedNanos / 1e9 < allowance) {
      scaled = Math.nextUp(scaled);
    }
    return scaled;
  }

  /** The dimension names, in order. */
  public List<String> dimensionNames() {
    return dimensions.stream().map(Dimension::name).toList();
  }

  /** The class names, highest first. */
  public List<String> priorityNames() {
    return priorities.stream().map(PriorityClass::name).toList();
  }

  /**
   * Builds a {@link Policy}; every setter checks its range at once. Not thread-safe: configure it
   * on one thread, then build.
   */
  public static final class Builder {
    private final String target;
    private final List<Dimension> dimensions = new ArrayList<>();
    private final List<PriorityClass> priorities = new ArrayList<>();
    private final Map<String, Double> tenantWeights = new LinkedHashMap<>();
    private double defaultTenantWeight = 1.0;
    private boolean reservation;
    private long defaultMaxTokens = 1024;
    private Duration idleTtl = Duration.ofSeconds(10);

    /** The provider's accounting period when a cap was given in it; the safe window's default. */
    private @Nullable Duration providerPeriod;

    private @Nullable Duration safeWindow;
    private boolean safeWindowGiven;
    private Duration shareHorizon = Duration.ofSeconds(1);
    private Duration grantTtl = Duration.ofMinutes(15);
    private FeedbackPolicy feedback = FeedbackPolicy.DEFAULT;
    private boolean feedbackGiven;
    private PriorityMode priorityMode = PriorityMode.SHARED;
    private Duration sendMargin = Duration.ZERO;
    private Limits.@Nullable Concurrency concurrency;
    private final Map<String, Integer> classConcurrency = new LinkedHashMap<>();
    private final Map<String, Integer> tenantConcurrency = new LinkedHashMap<>();
    private @Nullable Integer defaultTenantConcurrency;
    private final List<Limits.Calendar> calendar = new ArrayList<>();
    private ZoneId timeZone = Limits.NONE.timeZone();
    private Limits.@Nullable Price price;
    private final Map<String, Limits.Quota> tenantQuotas = new LinkedHashMap<>();
    private Limits.@Nullable Quota defaultTenantQuota;
    private final Map<String, Limits.Quota> classQuotas = new LinkedHashMap<>();

    private Builder(String target) {
      this.target = target;
    }

    /**
     * Adds a dimension capped at {@code capPerSecond} units per second with burst {@code burst}.
     */
    public Builder dimension(String name, double capPerSecond, double burst) {
      dimensions.add(new Dimension(name, capPerSecond, burst));
      return this;
    }

    /** Adds {@code requests} capped per second; burst one second of cap, at least one request. */
    public Builder requestsPerSecond(double cap) {
      return dimension(Dimension.REQUESTS, cap, Math.max(1, cap));
    }

    /**
     * Adds {@code requests} capped per minute, as providers publish it; burst one second of cap, at
     * least one request. The provider's period is then known to be a minute, so the safe window
     * defaults to 60 s (see {@link #safeWindow}).
     */
    public Builder requestsPerMinute(double cap) {
      providerPeriod = ONE_MINUTE;
      return requestsPerSecond(cap / 60.0);
    }

    /** Adds {@code tokens} capped per second; burst defaults to one second of cap. */
    public Builder tokensPerSecond(double cap) {
      return dimension(Dimension.TOKENS, cap, cap);
    }

    /**
     * Adds {@code tokens} capped per minute, as providers publish it; burst one second of cap. The
     * provider's period is then known to be a minute, so the safe window defaults to 60 s (see
     * {@link #safeWindow}).
     */
    public Builder tokensPerMinute(double cap) {
      providerPeriod = ONE_MINUTE;
      return tokensPerSecond(cap / 60.0);
    }

    /**
     * States the provider's accounting period {@code P} (caps given per minute state 60 s on their
     * own), so that the safe window and the period in which the provider's limit headers are read
     * ({@link FeedbackPolicy#period()}, unless {@link #feedback} is given) default to it. Use it
     * for caps given per second or through {@link #dimension} when the provider's period is known:
     * a provider counting per second that answers {@code limit: 5} means 5 a second, not 5 a
     * minute.
     */
    public Builder providerPeriod(Duration period) {
      this.providerPeriod = Objects.requireNonNull(period, "period");
      return this;
    }

    /** Adds a priority class below those added so far, with no default wait limit. */
    public Builder priority(String name, double weight) {
      return priority(name, weight, null);
    }

    /**
     * Adds a priority class below those added so far; a call of the class that carries no wait
     * limit of its own is answered {@link Admission.Expired} when its turn would come after {@code
     * maxWait} ({@code null}: no limit).
     */
    public Builder priority(String name, double weight, @Nullable Duration maxWait) {
      priorities.add(new PriorityClass(name, weight, maxWait));
      return this;
    }

    /** How classes share the cap (default {@link PriorityMode#SHARED}). */
    public Builder priorityMode(PriorityMode mode) {
      if (mode == null) {
        throw new InvalidPolicyException(
            "priority_mode", "priority_mode must be one of shared, strict, got null");
      }
      this.priorityMode = mode;
      return this;
    }

    /** Sets a tenant's weight (default: the default tenant weight). */
    public Builder tenantWeight(String tenant, double weight) {
      PolicyChecks.name("tenants.weights", tenant);
      PolicyChecks.positive("tenants.weights." + tenant, weight);
      tenantWeights.put(tenant, weight);
      return this;
    }

    /** Sets the weight of tenants not named (default 1). */
    public Builder defaultTenantWeight(double weight) {
      PolicyChecks.positive("tenants.default_weight", weight);
      this.defaultTenantWeight = weight;
      return this;
    }

    /** Turns on reservation mode with the given default completion bound (default off, 1024). */
    public Builder reservation(boolean enabled, long defaultMaxTokens) {
      this.reservation = enabled;
      this.defaultMaxTokens = defaultMaxTokens;
      return this;
    }

    /** How long an idle queue stays in the share sums (default 10 s). */
    public Builder idleTtl(Duration ttl) {
      this.idleTtl = ttl;
      return this;
    }

    /**
     * Never admit more than {@code C_d} times {@code window} in any window of that length, however
     * aligned; {@code null} turns it off. Default: the provider's period when it is known (a cap
     * given per minute, or {@link #providerPeriod}), else off: a provider counting in fixed windows
     * of {@code P} would otherwise see up to one burst more than {@code C_d·P} in one of them, at a
     * cold start for example (docs/deploying.md, {@code safe_window}, has the measured cost).
     */
    public Builder safeWindow(@Nullable Duration window) {
      this.safeWindow = window;
      this.safeWindowGiven = true;
      return this;
    }

    /**
     * No safe window, whatever the provider's period: the bucket bound {@code C_d·T + B_d} alone.
     */
    public Builder withoutSafeWindow() {
      return safeWindow(null);
    }

    /**
     * Widens the safe window by {@code margin} and scales every cap to keep the window's allowance,
     * so that no provider window sees more than the cap while the delay from admission to the
     * provider's count varies by at most {@code margin} (default zero: the caps and the window as
     * given). Applied in {@link #build()} after the safe window's default is resolved, so {@code
     * requestsPerMinute(600).sendMargin(Duration.ofSeconds(1))} gives a 61 s window. What it bounds
     * and costs: {@link Policy#withSendMargin}.
     *
     * @throws InvalidPolicyException naming {@code send_margin} at once when {@code margin} is null
     *     or negative; {@link #build()} throws it when the margin is longer than the safe window or
     *     there is no safe window
     */
    public Builder sendMargin(Duration margin) {
      if (margin == null || margin.isNegative()) {
        throw sendMarginOutOfRange(margin, null);
      }
      this.sendMargin = margin;
      return this;
    }

    /** The horizon over which shares are banked and usage averaged (default 1 s). */
    public Builder shareHorizon(Duration horizon) {
      this.shareHorizon = horizon;
      return this;
    }

    /** How long unreleased grants and unredeemed bookings are remembered (default 15 min). */
    public Builder grantTtl(Duration ttl) {
      this.grantTtl = ttl;
      return this;
    }

    /**
     * How the gate learns from the provider's answers. Default: {@link FeedbackPolicy#DEFAULT},
     * with its period the provider's when {@link #providerPeriod} states it.
     */
    public Builder feedback(FeedbackPolicy feedback) {
      this.feedback = Objects.requireNonNull(feedback, "feedback");
      this.feedbackGiven = true;
      return this;
    }

    /**
     * At most {@code maxInFlight} calls in flight at once, each holding a lease from its admission
     * to its release; a lease not released within {@code leaseTtl} expires by itself (default: no
     * limit).
     *
     * @throws InvalidPolicyException naming {@code concurrency.max_in_flight} outside {@code [1,
     *     1000000]} or {@code concurrency.lease_ttl} outside {@code [1s, 24h]}
     */
    public Builder concurrency(int maxInFlight, Duration leaseTtl) {
      this.concurrency = new Limits.Concurrency(maxInFlight, leaseTtl);
      return this;
    }

    /** {@link #concurrency(int, Duration)} with the default lease TTL of 60 s. */
    public Builder concurrency(int maxInFlight) {
      return concurrency(maxInFlight, Limits.Concurrency.DEFAULT_LEASE_TTL);
    }

    /**
     * An adaptive limit on the calls in flight at once ({@link Limits.Adaptive} has its law): it
     * starts at {@code min} and moves within {@code [min, max]}, growing while released calls take
     * at most {@code latencyTarget} and halving on a slower call or an overload answer. Each call
     * holds a lease from its admission to its release; a lease not released within {@code leaseTtl}
     * expires by itself. Replaces a fixed {@link #concurrency(int, Duration)}.
     *
     * @throws InvalidPolicyException naming {@code concurrency.adaptive.min} outside {@code [1,
     *     1000000]}, {@code concurrency.adaptive.max} outside {@code [min, 1000000]}, {@code
     *     concurrency.adaptive.latency_target} outside {@code (0, 24h]} or {@code
     *     concurrency.lease_ttl} outside {@code [1s, 24h]}
     */
    public Builder adaptiveConcurrency(
        int min, int max, Duration latencyTarget, Duration leaseTtl) {
      this.concurrency =
          new Limits.Concurrency(new Limits.Adaptive(min, max, latencyTarget), leaseTtl);
      return this;
    }

    /** {@link #adaptiveConcurrency(int, int, Duration, Duration)} with the 60 s lease TTL. */
    public Builder adaptiveConcurrency(int min, int max, Duration latencyTarget) {
      return adaptiveConcurrency(min, max, latencyTarget, Limits.Concurrency.DEFAULT_LEASE_TTL);
    }

    /**
     * At most {@code maxInFlight} calls of class {@code priority} in flight at once, whatever their
     * tenants, on top of the target's limit ({@link #concurrency}; without one, the target is
     * unlimited and the leases last the default 60 s). Checked in {@link #build()}: {@code
     * concurrency.classes.<priority>} must be in {@code [1, 1000000]} and name a class of the
     * policy.
     */
    public Builder classConcurrency(String priority, int maxInFlight) {
      classConcurrency.put(Objects.requireNonNull(priority, "priority"), maxInFlight);
      return this;
    }

    /**
     * At most {@code maxInFlight} calls of {@code tenant} in flight at once, on top of the target's
     * and its class's limits. Checked in {@link #build()}: {@code concurrency.tenants.<tenant>}
     * must be in {@code [1, 1000000]}.
     */
    public Builder tenantConcurrency(String tenant, int maxInFlight) {
      PolicyChecks.name("concurrency.tenants", tenant);
      tenantConcurrency.put(tenant, maxInFlight);
      return this;
    }

    /**
     * At most {@code maxInFlight} calls in flight at once for every tenant without a limit of its
     * own ({@link #tenantConcurrency}). Checked in {@link #build()}: {@code
     * concurrency.default_tenant} must be in {@code [1, 1000000]}.
     */
    public Builder defaultTenantConcurrency(int maxInFlight) {
      this.defaultTenantConcurrency = maxInFlight;
      return this;
    }

    /**
     * At most {@code limit} of {@code dimension} per calendar day in the {@link #timeZone} (the
     * dimension is added with {@link #dimension} as well, before or after).
     */
    public Builder perDay(String dimension, double limit) {
      calendar.add(new Limits.Calendar(dimension, Limits.Period.DAY, limit));
      return this;
    }

    /** At most {@code limit} of {@code dimension} per calendar month in the {@link #timeZone}. */
    public Builder perMonth(String dimension, double limit) {
      calendar.add(new Limits.Calendar(dimension, Limits.Period.MONTH, limit));
      return this;
    }

    /** The zone of the calendar windows and quotas (default UTC). */
    public Builder timeZone(ZoneId zone) {
      this.timeZone = Objects.requireNonNull(zone, "zone");
      return this;
    }

    /**
     * The zone of the calendar windows and quotas, by name.
     *
     * @throws InvalidPolicyException naming {@code time_zone} when the zone does not exist
     */
    public Builder timeZone(String zone) {
      return timeZone(Limits.zone(zone));
    }

    /**
     * The model's price per million input and output tokens, for quotas in currency.
     *
     * @throws InvalidPolicyException naming the price outside {@code [0, 1000000]}
     */
    public Builder price(double inputPerMillion, double outputPerMillion) {
      this.price = new Limits.Price(inputPerMillion, outputPerMillion);
      return this;
    }

    /** The quota of one tenant, e.g. {@code Limits.Quota.tokensPerDay(2_000_000)}. */
    public Builder tenantQuota(String tenant, Limits.Quota quota) {
      PolicyChecks.name("quotas.tenants", tenant);
      tenantQuotas.put(tenant, Objects.requireNonNull(quota, "quota"));
      return this;
    }

    /** The quota of every tenant without one of its own. */
    public Builder defaultTenantQuota(Limits.Quota quota) {
      this.defaultTenantQuota = Objects.requireNonNull(quota, "quota");
      return this;
    }

    /** The quota of a priority class, shared by all its tenants. */
    public Builder classQuota(String priority, Limits.Quota quota) {
      classQuotas.put(priority, Objects.requireNonNull(quota, "quota"));
      return this;
    }

    /**
     * The policy, with the send margin applied to the resolved safe window.
     *
     * @throws InvalidPolicyException naming the field at fault
     */
    public Policy build() {
      Policy policy =
          new Policy(
              target,
              dimensions,
              priorities,
              tenantWeights,
              defaultTenantWeight,
              reservation,
              defaultMaxTokens,
              idleTtl,
              safeWindowGiven ? safeWindow : providerPeriod,
              shareHorizon,
              grantTtl,
              priorityMode,
              feedbackGiven || providerPeriod == null
                  ? feedback
                  : feedback.toBuilder().period(providerPeriod).build(),
              new Limits(
                  concurrency(),
                  calendar,
                  timeZone,
                  price,
                  tenantQuotas,
                  defaultTenantQuota,
                  classQuotas));
      return policy.withSendMargin(sendMargin);
    }

    /** The target's concurrency limit with the classes' and tenants' limits, if any. */
    private Limits.@Nullable Concurrency concurrency() {
      if (classConcurrency.isEmpty()
          && tenantConcurrency.isEmpty()
          && defaultTenantConcurrency == null) {
        return concurrency;
      }
      return new Limits.Concurrency(
          concurrency != null ? concurrency.maxInFlight() : Limits.MAX_IN_FLIGHT,
          concurrency != null ? concurrency.leaseTtl() : Limits.Concurrency.DEFAULT_LEASE_TTL,
          classConcurrency,
          tenantConcurrency,
          defaultTenantConcurrency,
          concurrency != null ? concurrency.adaptive() : null);
    }
  }
}
