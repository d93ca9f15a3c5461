package io.backpressure.core.spi;

import io.backpressure.core.feedback.FeedbackPolicy;
import io.backpressure.core.feedback.FeedbackState;
import io.backpressure.core.feedback.ProviderSignal;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The effective caps {@code E_d ≤ C_d} that admission decides against, learned from what the
 * provider says. A pure state machine: time is passed in (integer microseconds, as in the admission
 * rule), nothing here reads a clock or blocks. Not thread-safe: the in-memory gate calls it under
 * its lock, and the Redis backend runs the same arithmetic in {@code feedback.lua}, one atomic step
 * per answer (the table at the end maps the names).
 *
 * <p>Backend SPI ({@linkplain io.backpressure.core.spi the package} says what that promises): a
 * backend keeps one per target and feeds it every answer, or runs the same arithmetic where its
 * state lives, as {@code feedback.lua} does. Applications hand the provider's answers to {@code
 * Gate.feedback} and read what was learned in {@code FeedbackState}; {@code FeedbackPolicy} is how
 * they tune it.
 *
 * <h2>Why</h2>
 *
 * The paper ("Dispatch Control for Priority-Based, Multi-Tenant Workflows under Multi-Resource
 * External Rate Limits", its assumptions A1 and A2) takes the caps as static and known and the gate
 * as the provider's only consumer. In practice a deployment's limit is lowered on the fly, a
 * workspace carries a lower limit than the tier, another application spends from the same key. With
 * caps configured too high every worker keeps overshooting; the provider's answers say so, and
 * every answer is a chance to learn.
 *
 * <h2>The rule</h2>
 *
 * For each dimension {@code d}, with {@code C} the configured cap (units/s) and {@code P} the
 * provider's accounting period:
 *
 * <pre>    E = max(floor · C, min(C, A, Lim, Out))</pre>
 *
 * <ul>
 *   <li><b>A, the 429 part (AIMD).</b> Starts unbounded. A 429 for {@code d} (the error body's type
 *       names it, or its {@code remaining} header is zero; a 429 that names nothing counts for
 *       every dimension) sets {@code A = max(floor · C, decrease · E)} (unless the same answer's
 *       headers already lowered {@code E}, which explains the 429) and starts a cooldown until the
 *       provider's reset for {@code d} (else its {@code retry-after}, else {@code cooldown}). The
 *       cooldown is shared: 429s of calls that were already in flight when the first one came back
 *       do not cut again, and nothing grows. When the provider said when (its reset or {@code
 *       retry-after}, not the policy's {@code cooldown}), its window for {@code d} is spent until
 *       then ({@link #spentFrom}, {@link #spentUntil}): until that instant, admission holds L1 of
 *       {@code d} at most what it refilled since the 429 (NestedBuckets, "Cold start, and a spent
 *       provider window"). Once it ends and while no 429 comes, {@code A} grows by {@code increase
 *       · C} per second, never above {@code C}.
 *   <li><b>Lim, the adopted limit.</b> The latest {@code limit} header {@code L} means {@code L/P}
 *       units per second. Below {@code C} it is adopted with headroom: {@code Lim = (1 − headroom)
 *       · L/P}; at or above {@code C} it bounds nothing. The latest header wins, so a limit that
 *       comes back up lifts the bound at once.
 *   <li><b>Out, room for outside traffic.</b> The provider's window ends at {@code now + reset}, so
 *       it began {@code elapsed = P − reset} ago, and it has counted {@code L − remaining}. The
 *       gate counts what its own answered calls used in the same span (in {@link #SLOTS} slots per
 *       period). Whatever the provider counted beyond that came from elsewhere: the sample {@code
 *       (L − remaining − own) / elapsed} units/s enters an average with weight {@code
 *       outside_weight · elapsed / P} (early in a window the sample is noisy and weighs little; a
 *       sample under 10 % of the period is skipped). Samples are averaged signed, so the noise of
 *       calls in flight cancels; the estimate {@code O} is clamped at zero when used. Once {@code
 *       O} exceeds {@link #OUTSIDE_ENGAGE} of {@code base = min(C, L/P)}, {@code Out = base − (1 +
 *       headroom) · O}, until it falls below {@link #OUTSIDE_RELEASE} of {@code base}.
 * </ul>
 *
 * <h2>The noise of the outside estimate, and its dead band</h2>
 *
 * The provider counts a call when it arrives, the gate when it is answered: at any instant the
 * calls in flight are in the provider's count and not yet in the gate's, and the calls answered
 * early in a window were counted in the previous one. On average the two cancel, but one sample is
 * off by about what the gate sends in one latency, and a fixed window's start and end move that by
 * whole calls. With a 1 s window and 50–150 ms latency that is several percent of the cap in either
 * direction, and the average {@code O} wanders by as much (up to about 10 % of the cap over a 100 s
 * run at full load, the evaluation README's correct-caps workloads). Were every excursion taken as
 * outside traffic, {@code E} would dip below a correct cap for a moment several times a second and
 * cost about 1 % of the throughput. So {@code O} bounds nothing inside a dead band: it starts
 * bounding {@code E} once above {@link #OUTSIDE_ENGAGE} of {@code base} and stops once back below
 * {@link #OUTSIDE_RELEASE} (hysteresis, so an estimate near the edge does not switch on and off
 * with every answer). A 429 is no noise: it makes a positive estimate bound {@code E} at once,
 * whatever its size, and when that lowers {@code E} it explains the 429 (no cut of {@code A}); the
 * estimate then stops bounding once it is below the release level again. So outside traffic smaller
 * than the band is left room for from its first 429 on, and a lone 429 that comes while the
 * estimate is slightly positive costs a dip of the estimate's size until the next answer, not a 20
 * % cut. A 429 with no sign of outside traffic ({@code O ≤ 0}) cuts {@code A} as before.
 *
 * <h2>Overloaded, and stopped until a reset</h2>
 *
 * Not every refusal says a cap is lower ({@link ProviderSignal.Meaning}, and the provider table in
 * {@code ProviderSignals}). An overloaded provider (Anthropic's 529, a 503 that says so) is
 * overloaded for everyone: every dimension's window is held spent from that answer for its {@code
 * retry-after} (else {@code cooldown}) and a recovery ramp starts, so the gate sends at {@code
 * ramp.fraction} of its caps and back up to them over {@code ramp.duration}; {@code A} is not cut,
 * so once the overload ends the caps are what they were. A reached stop (a spend limit, a per-day
 * quota) holds its dimensions (every one when it names none) the same way until the reset it gave
 * (else {@link #STOP_HOLD}), at most {@link #MAX_STOP_HOLD}, and cuts nothing either. Neither
 * counts toward an outage.
 *
 * <h2>Retry-after is a pause; a stop refuses</h2>
 *
 * A 429 or an overload with the provider's own {@code retry-after} (or Gemini's {@code
 * RetryInfo.retryDelay}) says when the target may be called again, so admission sends nothing to it
 * before then ({@link #pausedUntil}, at most {@link #MAX_HOLD}): every call is deferred until that
 * instant, whatever room the buckets have, in every process that shares the state. A reached stop
 * says the target has nothing to give before its reset: admission refuses every call until then
 * ({@link #stoppedUntil}: the provider's reset, Gemini's per-day quota at the next midnight
 * Pacific, else {@link #STOP_HOLD}, at most {@link #MAX_STOP_HOLD}) with that reset instant, a
 * terminal answer instead of a wait. Both are instants of the gate's clock; a later signal only
 * moves them later.
 *
 * <h2>Recovery ramp</h2>
 *
 * After calls went unpaced (the gate failed open: {@link ProviderSignal#resumed()}), or after an
 * outage ({@code outage_errors} provider errors in a row, then an answer), every admission would
 * otherwise release its waiting backlog at once. So what admission decides against is {@code E ·
 * m(t)}, with {@code m} rising linearly from {@code ramp.fraction} to 1 over {@code ramp.duration}
 * from the moment traffic resumes.
 *
 * <h2>When the caps move</h2>
 *
 * {@code E_d} moves only when an answer is reported: {@link #observe} is the one step, and the caps
 * it leaves (the growth computed for that instant) are what admission decides against until the
 * next answer. The ramp's factor is a function of time alone, so it is applied at admission: the
 * in-memory gate hands {@link #applied} to the rule at every admission while a ramp runs, and on
 * Redis {@code feedback.lua} stores the ramp's start, end and fraction beside the effective caps
 * for every decision to apply at its own time. A ramp therefore rises whether or not answers are
 * reported (a gate whose caller reports none still returns to {@code E_d}).
 *
 * <h2>What admission decides with</h2>
 *
 * {@link #rulePolicy} turns the caps into the policy the rule decides with: each dimension's cap
 * becomes the applied cap {@code r = E_d · m}, its burst {@code B_d · r / C_d} in proportion. The
 * request count is clamped so that one request always fits, whatever the provider says: its rate is
 * at least one request per safe window ({@code 1 / P_s}, when the policy has a safe window), and
 * its burst at least one request. Without the clamp a low adopted limit (or the floor of a small
 * cap: {@code 0.05 · 10/s} is a burst of half a request) would leave a rule that can never admit a
 * call, and a policy that is refused as such. One request per window is also the least a provider's
 * {@code limit} header can state, so the clamp never admits more than the provider's own limit.
 * {@link FeedbackState} still reports {@code E_d} as learned; feedback.lua writes the same numbers
 * into the parameters the scripts decide with ({@code rule_rate} there).
 *
 * <h2>A worked example</h2>
 *
 * {@code C = 60} requests/s, {@code P = 1 s}, defaults otherwise. The provider's real limit is 45
 * per second: the first answer's {@code x-ratelimit-limit-requests: 45} is below {@code C}, so
 * {@code Lim = 0.95 · 45 = 42.75/s} and {@code E = 42.75}. Another application then spends 9/s:
 * answers half-way through a window show {@code remaining} about 4.5 lower than the gate's own
 * count explains, samples of about 9/s, and within a few periods {@code O ≈ 9}, {@code Out = 45 −
 * 1.05 · 9 = 35.55}, {@code E = 35.55}. A 429 on a busy window cuts {@code A} to {@code 0.8 · 35.55
 * = 28.4} until the window resets (say 300 ms), after which {@code A} grows 3/s and stops bounding
 * {@code E} within about 2.4 s.
 *
 * <h2>Java and Lua names</h2>
 *
 * <pre>
 *   aimd[d], aimdAt[d]       a, a_at          the 429 part A (infinite: no bound) and when it last moved
 *   cooldownUntil[d]         cool             end of the dimension's cooldown (µs)
 *   spentUntil[d]            spent            end of the provider's spent window, as it said (µs)
 *   spentFrom[d]             spent_from       when the 429 that said so came (µs)
 *   pausedUntil              pause            no call before it: the provider's retry-after (µs)
 *   stoppedUntil             stop             every call refused before it: a stop's reset (µs)
 *   limitRate[d]             lim              L/P of the latest limit header (NaN / -1: none)
 *   outside[d]               out              the outside-traffic average O (signed)
 *   outsideBounds[d]         out_on           whether O bounds E now (the dead band's hysteresis)
 *   own[d][i], ownSlot[i]    own, own_slot    what answered calls used, per slot of P/SLOTS
 *   rampStart, rampEnd       ramp_start, ramp_end
 *   errors, outage           errors, outage
 * </pre>
 */
public final class EffectiveCaps {
  /**
   * The policy admission decides with when the caps applied are {@code applied} (units per second,
   * in {@code configured}'s dimension order, each at most the configured cap): every dimension
   * whose applied cap differs from its configured one gets that cap and its burst scaled in
   * proportion, and the request count is clamped so that one request always fits (see "What
   * admission decides with"). Never throws for applied caps in {@code (0, C_d]}.
   */
  public static io.backpressure.core.Policy rulePolicy(
      io.backpressure.core.Policy configured, double[] applied) {
    java.time.Duration window = configured.safeWindow();
    io.backpressure.core.Policy out = configured;
    for (int d = 0; d < applied.length; d++) {
      io.backpressure.core.Dimension c = configured.dimensions().get(d);
      double rate = applied[d];
      boolean requests = c.name().equals(io.backpressure.core.Dimension.REQUESTS);
      if (requests && window != null) {
        rate = Math.max(rate, Math.min(c.capPerSecond(), oneRequestPerWindow(window)));
      }
      if (rate == c.capPerSecond()) {
        continue;
      }
      double burst = c.burst() * rate / c.capPerSecond();
      if (requests) {
        burst = Math.max(1, burst);
      }
      out = out.withDimension(new io.backpressure.core.Dimension(c.name(), rate, burst));
    }
    return out;
  }

  /**
   * The least rate (per second) at which the safe window holds one request: {@code 10^6 / µs} with
   * {@code µs} its length in whole microseconds, rounded up until the window's allowance, computed
   * both as the rule computes it ({@code rate · µs / 10^6}) and as the policy checks it ({@code
   * rate · ns / 10^9}), is at least one. feedback.lua's {@code one_request_per_window} is the same
   * loop.
   */
  static double oneRequestPerWindow(java.time.Duration window) {
    long micros = window.toNanos() / 1_000;
    double rate = 1e6 / micros;
    double nanos = micros * 1_000.0;
    while (rate * micros / 1e6 < 1 || rate * nanos / 1e9 < 1) {
      rate = Math.nextUp(rate);
    }
    return rate;
  }

  /** Slots per provider period in which the gate's own usage is counted. */
  public static final int SLOTS = 20;

  /** An outside estimate above this fraction of the cap starts bounding it (see the dead band). */
  public static final double OUTSIDE_ENGAGE = 0.1;

  /** An outside estimate that bounds the cap stops bounding it below this fraction of the cap. */
  public static final double OUTSIDE_RELEASE = 0.05;

  /** The longest a 429 or an overload holds a dimension: ten minutes. */
  public static final java.time.Duration MAX_HOLD = java.time.Duration.ofMinutes(10);

  /**
   * How long a reached stop (a spend limit, an exhausted quota: {@link
   * ProviderSignal.Meaning#STOP_UNTIL_RESET}) holds its dimensions when the provider did not say
   * until when: ten minutes, after which the next call finds out whether it still holds.
   */
  public static final java.time.Duration STOP_HOLD = java.time.Duration.ofMinutes(10);

  /**
   * The longest a reached stop holds: 25 hours, a day and the hour that a day on which the clocks
   * go back has (the Gemini API's per-day quotas reset at midnight Pacific time).
   */
  public static final java.time.Duration MAX_STOP_HOLD = java.time.Duration.ofHours(25);

  /** A window younger than this fraction of the period gives no outside sample. */
  public static final double MIN_ELAPSED = 0.1;

  private final List<String> names;
  private final int dims;
  private FeedbackPolicy policy;
  private double[] caps;
  private final double[] aimd;
  private final long[] aimdAt;
  private final long[] cooldownUntil;
  private final long[] spentUntil;
  private final long[] spentFrom;
  private final double[] limitRate;
  private final double[] outside;
  private final boolean[] outsideBounds;
  private final double[][] own;
  private final long[] ownSlot = new long[SLOTS];
  private long pausedUntil = Long.MIN_VALUE;
  private long stoppedUntil = Long.MIN_VALUE;
  private long rampStart;
  private long rampEnd = Long.MIN_VALUE;
  private int errors;
  private boolean outage;
  private long signals;
  private long decreases;
  private long adoptions;
  private long ramps;
  private long ignored;

  /**
   * Effective caps equal to {@code caps} until the provider says otherwise.
   *
   * @param names the dimension names, in the policy's order
   * @param caps the configured caps {@code C_d}, units per second, in the same order
   */
  public EffectiveCaps(List<String> names, double[] caps, FeedbackPolicy policy) {
    this.names = List.copyOf(names);
    this.dims = names.size();
    if (caps.length != dims) {
      throw new IllegalArgumentException(
          "caps has " + caps.length + " entries for " + dims + " dimensions");
    }
    this.policy = Objects.requireNonNull(policy, "policy");
    this.caps = caps.clone();
    this.aimd = new double[dims];
    Arrays.fill(aimd, Double.POSITIVE_INFINITY);
    this.aimdAt = new long[dims];
    this.cooldownUntil = new long[dims];
    Arrays.fill(cooldownUntil, Long.MIN_VALUE);
    this.spentUntil = new long[dims];
    Arrays.fill(spentUntil, Long.MIN_VALUE);
    this.spentFrom = new long[dims];
    Arrays.fill(spentFrom, Long.MIN_VALUE);
    this.limitRate = new double[dims];
    Arrays.fill(limitRate, Double.NaN);
    this.outside = new double[dims];
    this.outsideBounds = new boolean[dims];
    this.own = new double[dims][SLOTS];
    Arrays.fill(ownSlot, Long.MIN_VALUE);
  }

  /**
   * A hot update of the configured caps or the feedback parameters. What was learned is kept; a 429
   * part that had grown back (or never moved) follows the new caps. A new period forgets the own
   * usage counted in the old period's slots.
   */
  public void reconfigure(double[] newCaps, FeedbackPolicy newPolicy) {
    if (newCaps.length != dims) {
      throw new IllegalArgumentException(
          "caps has " + newCaps.length + " entries for " + dims + " dimensions");
    }
    Objects.requireNonNull(newPolicy, "policy");
    if (!newPolicy.period().equals(policy.period())) {
      Arrays.fill(ownSlot, Long.MIN_VALUE);
    }
    this.caps = newCaps.clone();
    this.policy = newPolicy;
  }

  /**
   * Learns from one answer at {@code now} (µs).
   *
   * @param own what this call used of each dimension (policy order), counted as this gate's own
   *     traffic when the provider answered; null to count nothing
   */
  public void observe(long now, ProviderSignal signal, double @Nullable [] own) {
    Objects.requireNonNull(signal, "signal");
    if (!policy.enabled()) {
      return;
    }
    signals++;
    ignored += signal.ignored();
    for (int d = 0; d < dims; d++) {
      settle(d, now);
    }
    if (signal.resumed()) {
      startRamp(now);
      return;
    }
    if (signal.providerError()) {
      errors++;
      if (errors >= policy.outageErrors()) {
        outage = true;
      }
      return;
    }
    errors = 0;
    if (outage) {
      outage = false;
      startRamp(now);
    }
    if (own != null) {
      count(now, own);
    }
    double[] before = new double[dims];
    for (int d = 0; d < dims; d++) {
      before[d] = effective(d, now);
      ProviderSignal.RateLimit limit = signal.limits().get(names.get(d));
      if (limit != null) {
        adopt(d, now, limit);
      }
    }
    boolean named = false;
    for (int d = 0; d < dims; d++) {
      named |= signal.exhausted().contains(names.get(d));
    }
    switch (signal.meaning()) {
      case SLOW_DOWN -> {
        for (int d = 0; d < dims; d++) {
          if (!named || signal.exhausted().contains(names.get(d))) {
            if (outside[d] > 0) {
              outsideBounds[d] = true;
            }
            decrease(d, now, signal, effective(d, now) < before[d]);
          }
        }
      }
      case OVERLOADED -> {
        for (int d = 0; d < dims; d++) {
          hold(d, now, signal.retryAfter(), policy.cooldown(), MAX_HOLD);
        }
        startRamp(now);
      }
      case STOP_UNTIL_RESET -> {
        for (int d = 0; d < dims; d++) {
          if (!named || signal.exhausted().contains(names.get(d))) {
            hold(d, now, signal.retryAfter(), STOP_HOLD, MAX_STOP_HOLD);
          }
        }
        stoppedUntil =
            Math.max(stoppedUntil, until(now, signal.retryAfter(), STOP_HOLD, MAX_STOP_HOLD));
      }
      default -> {}
    }
    java.time.@Nullable Duration retryAfter = signal.retryAfter();
    if ((signal.meaning() == ProviderSignal.Meaning.SLOW_DOWN
            || signal.meaning() == ProviderSignal.Meaning.OVERLOADED)
        && retryAfter != null
        && !retryAfter.isZero()) {
      pausedUntil = Math.max(pausedUntil, until(now, retryAfter, retryAfter, MAX_HOLD));
    }
  }

  /**
   * Holds dimension {@code d}'s provider window as spent from {@code now} for {@code wait} (when
   * the provider gave one), else {@code fallback}, at most {@code most}: what an overload and a
   * reached stop do instead of a cut. The caps stay as they are.
   */
  private void hold(
      int d,
      long now,
      java.time.@Nullable Duration wait,
      java.time.Duration fallback,
      java.time.Duration most) {
    spentUntil[d] = Math.max(spentUntil[d], until(now, wait, fallback, most));
    spentFrom[d] = now;
  }

  /**
   * {@code now} (µs) plus {@code wait} when the provider gave one, else {@code fallback}, at most
   * {@code most}, and at least 1 µs.
   */
  private static long until(
      long now,
      java.time.@Nullable Duration wait,
      java.time.Duration fallback,
      java.time.Duration most) {
    java.time.Duration hold = wait != null && !wait.isZero() ? wait : fallback;
    long micros = Math.min(hold.toNanos(), most.toNanos()) / 1_000;
    return now + Math.max(1, micros);
  }

  /**
   * What a reported call counts as this gate's own traffic, per dimension in {@code names}' order:
   * the larger of what the grant debited and what the provider reported as used (a provider may
   * count a call's reservation when it arrives, as OpenAI counts {@code max_tokens}; counting the
   * larger never mistakes the gate's own calls for outside traffic); either alone when only one is
   * known, null when neither is. Unknown dimensions and amounts that are negative or not finite
   * count as zero.
   */
  public static double @Nullable [] ownUse(
      List<String> names, io.backpressure.core.@Nullable Grant grant, ProviderSignal signal) {
    io.backpressure.core.Cost debited =
        grant != null && !grant.failedOpen() ? grant.debited() : null;
    io.backpressure.core.Cost used = signal.usage();
    if (debited == null && used == null) {
      return null;
    }
    double[] out = new double[names.size()];
    for (int d = 0; d < out.length; d++) {
      out[d] = Math.max(amount(debited, names.get(d)), amount(used, names.get(d)));
    }
    return out;
  }

  private static double amount(io.backpressure.core.@Nullable Cost cost, String dimension) {
    double amount = cost == null ? 0 : cost.amount(dimension);
    return Double.isFinite(amount) && amount > 0 ? amount : 0;
  }

  /**
   * What admission decides against at {@code now}: {@code E_d} times the ramp's factor, per
   * dimension.
   */
  public double[] applied(long now) {
    double m = rampMultiplier(now);
    double[] out = new double[dims];
    for (int d = 0; d < dims; d++) {
      out[d] = effective(d, now) * m;
    }
    return out;
  }

  /** The effective cap {@code E_d} at {@code now}, units per second. */
  public double effective(int d, long now) {
    double c = caps[d];
    if (!policy.enabled()) {
      return c;
    }
    double e = Math.min(c, aimdNow(d, now));
    double lim = limitRate[d];
    double base = c;
    if (!Double.isNaN(lim) && lim < c) {
      e = Math.min(e, (1 - policy.headroom()) * lim);
      base = lim;
    }
    double o = outside[d];
    if (outsideBounds[d] && o > 0) {
      e = Math.min(e, base - (1 + policy.headroom()) * o);
    }
    return Math.max(policy.floor() * c, e);
  }

  /** The recovery ramp's factor at {@code now}: from {@code ramp.fraction} up to 1. */
  public double rampMultiplier(long now) {
    if (!policy.enabled() || now >= rampEnd) {
      return 1;
    }
    double f = policy.rampFraction();
    return f + (1 - f) * (double) (now - rampStart) / (rampEnd - rampStart);
  }

  /** A copy of what has been learned, as of {@code now}. */
  public FeedbackState state(long now) {
    Map<String, FeedbackState.Dimension> out = new LinkedHashMap<>();
    double m = rampMultiplier(now);
    for (int d = 0; d < dims; d++) {
      double e = effective(d, now);
      double cooldown = cooldownUntil[d] > now ? (cooldownUntil[d] - now) / 1e6 : 0;
      double spent = spentUntil[d] > now ? (spentUntil[d] - now) / 1e6 : 0;
      out.put(
          names.get(d),
          new FeedbackState.Dimension(
              caps[d], e, e * m, limitRate[d], Math.max(0, outside[d]), cooldown, spent));
    }
    return new FeedbackState(out, m, outage, signals, decreases, adoptions, ramps, ignored);
  }

  /**
   * The 429 part of dimension {@code d} at {@code now}, grown by the quiet time since it last
   * moved; infinite when it bounds nothing (never cut, or grown back to the cap).
   */
  private double aimdNow(int d, long now) {
    long from = Math.max(aimdAt[d], cooldownUntil[d]);
    if (now <= from || aimd[d] == Double.POSITIVE_INFINITY) {
      return aimd[d];
    }
    double grown = aimd[d] + policy.increase() * caps[d] * (now - from) / 1e6;
    return grown >= caps[d] ? Double.POSITIVE_INFINITY : grown;
  }

  /** Folds the growth so far into {@code A} (outside a cooldown), so later growth starts now. */
  private void settle(int d, long now) {
    if (now > aimdAt[d] && now >= cooldownUntil[d]) {
      aimd[d] = aimdNow(d, now);
      aimdAt[d] = now;
    }
  }

  /**
   * A 429 for {@code d}: cut {@code A} unless a cooldown runs or the same answer's headers already
   * lowered the cap ({@code explained}: the new limit or outside estimate accounts for the 429);
   * either way the cooldown starts.
   */
  private void decrease(int d, long now, ProviderSignal signal, boolean explained) {
    if (now < cooldownUntil[d]) {
      return;
    }
    if (!explained) {
      aimd[d] = Math.max(policy.floor() * caps[d], policy.decrease() * effective(d, now));
      aimdAt[d] = now;
      decreases++;
    }
    ProviderSignal.RateLimit limit = signal.limits().get(names.get(d));
    java.time.@Nullable Duration told =
        limit != null && limit.reset() != null && !limit.reset().isZero()
            ? limit.reset()
            : signal.retryAfter() != null && !signal.retryAfter().isZero()
                ? signal.retryAfter()
                : null;
    java.time.Duration hold = told != null ? told : policy.cooldown();
    long micros = Math.min(hold.toNanos(), MAX_HOLD.toNanos()) / 1_000;
    cooldownUntil[d] = now + Math.max(1, micros);
    if (told != null) {
      spentUntil[d] = cooldownUntil[d];
      spentFrom[d] = now;
    }
  }

  /**
   * Until when (µs) the provider said dimension {@code d}'s window is spent: the end of the last
   * cooldown a 429 started with the provider's own reset or {@code retry-after}; {@link
   * Long#MIN_VALUE} when none did.
   */
  public long spentUntil(int d) {
    return spentUntil[d];
  }

  /**
   * Until when (µs) admission sends nothing to the target: the latest instant a 429 or an overload
   * named with its {@code retry-after}; {@link Long#MIN_VALUE} when none did.
   */
  public long pausedUntil() {
    return pausedUntil;
  }

  /**
   * Until when (µs) admission refuses every call: the latest reset a stop (a spend limit, a per-day
   * quota) gave, else {@link #STOP_HOLD} after it; {@link Long#MIN_VALUE} when none came.
   */
  public long stoppedUntil() {
    return stoppedUntil;
  }

  /**
   * When (µs) the 429 that made dimension {@code d}'s window spent until {@link #spentUntil} came;
   * {@link Long#MIN_VALUE} when none did.
   */
  public long spentFrom(int d) {
    return spentFrom[d];
  }

  private void adopt(int d, long now, ProviderSignal.RateLimit limit) {
    double period = policy.period().toNanos() / 1e9;
    if (limit.limit() != null) {
      double rate = limit.limit() / period;
      if (rate < caps[d] && rate != limitRate[d]) {
        adoptions++;
      }
      limitRate[d] = rate;
    }
    if (limit.limit() == null || limit.remaining() == null || limit.reset() == null) {
      return;
    }
    double reset = Math.min(period, limit.reset().toNanos() / 1e9);
    double elapsed = period - reset;
    if (elapsed < MIN_ELAPSED * period) {
      return;
    }
    double used = limit.limit() - limit.remaining();
    double mine = ownSince(d, now - (long) (elapsed * 1e6), now);
    double sample = (used - mine) / elapsed;
    double weight = policy.outsideWeight() * elapsed / period;
    outside[d] += weight * (sample - outside[d]);
    double base = Double.isNaN(limitRate[d]) ? caps[d] : Math.min(caps[d], limitRate[d]);
    outsideBounds[d] = outside[d] > (outsideBounds[d] ? OUTSIDE_RELEASE : OUTSIDE_ENGAGE) * base;
  }

  private void startRamp(long now) {
    rampStart = now;
    rampEnd = now + Math.max(1, policy.rampDuration().toNanos() / 1_000);
    ramps++;
  }

  private long slotWidth() {
    return Math.max(1, policy.period().toNanos() / 1_000 / SLOTS);
  }

  private void count(long now, double[] amounts) {
    long slot = Math.floorDiv(now, slotWidth());
    int i = (int) Math.floorMod(slot, (long) SLOTS);
    if (ownSlot[i] != slot) {
      ownSlot[i] = slot;
      for (int d = 0; d < dims; d++) {
        own[d][i] = 0;
      }
    }
    for (int d = 0; d < dims; d++) {
      own[d][i] += amounts[d];
    }
  }

  /** What answered calls used of {@code d} since {@code start} (µs), the first slot pro rata. */
  private double ownSince(int d, long start, long now) {
    long width = slotWidth();
    long current = Math.floorDiv(now, width);
    double sum = 0;
    for (int i = 0; i < SLOTS; i++) {
      long slot = ownSlot[i];
      if (slot == Long.MIN_VALUE || slot <= current - SLOTS || slot > current) {
        continue;
      }
      long begin = slot * width;
      long end = begin + width;
      if (end <= start) {
        continue;
      }
      sum += begin >= start ? own[d][i] : own[d][i] * (end - start) / width;
    }
    return sum;
  }
}
