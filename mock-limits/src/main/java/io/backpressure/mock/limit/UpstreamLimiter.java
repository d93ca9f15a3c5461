package io.backpressure.mock.limit;

import java.util.Objects;

/**
 * The caps of one simulated provider: an optional requests limiter and an optional tokens limiter,
 * each counted by its own {@link WindowModel}. A call passes only if every limiter admits it.
 *
 * <h2>How a call is decided</h2>
 *
 * <ol>
 *   <li>Every limiter is brought to {@code now}: fixed windows reset at multiples of their period
 *       (aligned to 0 on the {@code nowNanos} scale), sliding logs drop entries older than one
 *       period, buckets refill.
 *   <li>Every limiter is asked whether its amount (1 request; {@code tokens} tokens) fits.
 *   <li>If all fit, all are debited. If any is short, none is debited, unless {@code rejectedCount}
 *       is on: then the rejected call is debited too (its request and its tokens), as OpenAI
 *       documents for its own limits; this may push a count past the cap and delays recovery.
 *   <li>A rejection names the bound dimension: a dimension whose amount exceeds its cap outright
 *       (the call can never fit) first, else {@code requests} before {@code tokens}. The
 *       retry-after is the longest of the limiters' waits, measured after any debit of step 3.
 * </ol>
 *
 * <p>Worked example: fixed windows, 2 requests and 100 tokens per second. At t = 0.2 s a call of 60
 * tokens passes (remaining 1 request, 40 tokens); at 0.4 s a call of 50 tokens is refused on {@code
 * tokens} with retry-after 0.6 s (the window ends at 1 s); at 0.5 s a call of 30 tokens passes
 * (remaining 0 requests, 10 tokens); at 0.7 s a call of 1 token is refused on {@code requests}.
 *
 * <h2>Caps that drift, traffic from outside</h2>
 *
 * <p>The caps may change while the limiter runs: at times fixed in advance by a {@link
 * CapSchedule}, or whenever the caller says so with {@link #setCaps(long, Caps)}. A change keeps
 * what the windows already hold (see {@link WindowLimiter#setLimit(double)}), so lowering a cap
 * mid-window refuses calls until enough of the old usage has expired. {@link OutsideTraffic} adds
 * calls that consume the same caps without being the caller's: before each decision at {@code now}
 * every scheduled change and every outside call due up to {@code now} is applied in time order,
 * each outside call decided at its own arrival time, exactly as if it had arrived then.
 *
 * <p>Worked example: fixed windows of 1 s, 10 requests per second, outside traffic of 4 calls per
 * second (at 0.25, 0.5, 0.75 and 1 s, 1.25 s, …) and a schedule step halving the cap at 2 s. A call
 * at 0.6 s finds 2 outside calls in its window, so 7 requests remain after it. In the window
 * starting at 2 s the cap is 5 and the outside calls at 2, 2.25, 2.5 and 2.75 s take 4 of them: a
 * call at 2.76 s takes the last, and one at 2.8 s is refused with a retry-after of 0.2 s.
 *
 * <p>Not thread-safe: callers that share one instance across threads synchronise around it. Holds
 * no clock: the caller passes the time, so the same limiter serves the HTTP server (wall clock) and
 * the simulator (virtual time).
 */
public final class UpstreamLimiter {

  /** The name of the requests dimension, as in the 429 body's {@code type}. */
  public static final String REQUESTS = "requests";

  /** The name of the tokens dimension, as in the 429 body's {@code type}. */
  public static final String TOKENS = "tokens";

  private LimitSpec requestsSpec;
  private LimitSpec tokensSpec;
  private final WindowLimiter requests;
  private final WindowLimiter tokens;
  private final boolean rejectedCount;
  private final CapSchedule schedule;
  private final OutsideTraffic outside;
  private int nextStep;
  private long outsideArrived;
  private long outsideAdmitted;
  private long lastNow = Long.MIN_VALUE;

  /**
   * Static caps and no outside traffic.
   *
   * @param requests the requests cap, or {@code null} for none
   * @param tokens the tokens cap, or {@code null} for none
   * @param rejectedCount whether rejected calls are debited like admitted ones
   * @throws IllegalArgumentException if the requests cap is below 1 per period, which no request
   *     could ever fit
   */
  public UpstreamLimiter(LimitSpec requests, LimitSpec tokens, boolean rejectedCount) {
    this(requests, tokens, rejectedCount, CapSchedule.NONE, OutsideTraffic.NONE);
  }

  /**
   * Caps that change on {@code schedule}, shared with {@code outside} traffic.
   *
   * @param requests the requests cap at time 0, or {@code null} for none
   * @param tokens the tokens cap at time 0, or {@code null} for none
   * @param rejectedCount whether rejected calls are debited like admitted ones
   * @param schedule the changes to the caps, on the time scale of {@link #tryAcquire}
   * @param outside calls from elsewhere on the same caps
   * @throws IllegalArgumentException if a requests cap (at the start or in a step) is below 1 per
   *     period, or a step changes a dimension that has no cap
   */
  public UpstreamLimiter(
      LimitSpec requests,
      LimitSpec tokens,
      boolean rejectedCount,
      CapSchedule schedule,
      OutsideTraffic outside) {
    if (requests != null && requests.limitPerPeriod() < 1) {
      throw new IllegalArgumentException(
          "requests limit per period must be >= 1 (a request costs 1; lengthen the period for"
              + " lower rates), but was: "
              + requests.limitPerPeriod()
              + " per "
              + requests.period());
    }
    this.requestsSpec = requests;
    this.tokensSpec = tokens;
    this.requests = requests == null ? null : WindowLimiter.of(requests);
    this.tokens = tokens == null ? null : WindowLimiter.of(tokens);
    this.rejectedCount = rejectedCount;
    this.schedule = Objects.requireNonNull(schedule, "schedule");
    this.outside = Objects.requireNonNull(outside, "outside");
    for (int i = 0; i < schedule.steps().size(); i++) {
      try {
        specsFor(schedule.steps().get(i).caps());
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("schedule step " + (i + 1) + ": " + e.getMessage());
      }
    }
  }

  /**
   * Decides one call costing one request and {@code tokenCharge} tokens at {@code nowNanos}, and
   * debits it if admitted (or if rejected calls count).
   *
   * @param nowNanos the time on the caller's scale; must not be earlier than on any previous call
   * @param tokenCharge the call's token charge; finite and {@code >= 0}
   * @throws IllegalArgumentException if time moves backwards or {@code tokenCharge} is out of
   *     range; the state is unchanged then
   */
  public Verdict tryAcquire(long nowNanos, double tokenCharge) {
    if (!(tokenCharge >= 0) || Double.isInfinite(tokenCharge)) {
      throw new IllegalArgumentException("tokens must be finite and >= 0, but was: " + tokenCharge);
    }
    advanceTo(nowNanos);
    return decide(nowNanos, tokenCharge);
  }

  /**
   * Gives back to the tokens limiter up to {@code tokens} of a charge admitted at {@code
   * debitedAtNanos}, such as the part of a stream's completion that was never generated because the
   * stream was cut: what still counts at {@code nowNanos} is returned ({@link
   * WindowLimiter#refund}), what has expired is gone. Nothing happens when tokens are not capped.
   *
   * @param nowNanos the time on the caller's scale; must not be earlier than on any previous call
   * @param debitedAtNanos the time of the {@link #tryAcquire} that debited the charge; at most
   *     {@code nowNanos}
   * @param tokens the tokens to give back; finite and {@code >= 0}, and at most what that {@link
   *     #tryAcquire} charged
   * @throws IllegalArgumentException if time moves backwards, {@code debitedAtNanos} is after
   *     {@code nowNanos}, or {@code tokens} is out of range; the state is unchanged then
   */
  public void refundTokens(long nowNanos, long debitedAtNanos, double tokens) {
    if (!(tokens >= 0) || Double.isInfinite(tokens)) {
      throw new IllegalArgumentException("tokens must be finite and >= 0, but was: " + tokens);
    }
    if (debitedAtNanos > nowNanos) {
      throw new IllegalArgumentException(
          "debitedAtNanos must be <= nowNanos: " + debitedAtNanos + " after " + nowNanos);
    }
    advanceTo(nowNanos);
    if (this.tokens != null && tokens > 0) {
      this.tokens.advance(nowNanos);
      this.tokens.refund(nowNanos, debitedAtNanos, tokens);
    }
  }

  /**
   * Applies every scheduled cap change and decides every outside call due up to {@code nowNanos},
   * in time order (a change before an outside call at the same instant).
   *
   * @throws IllegalArgumentException if time moves backwards; the state is unchanged then
   */
  public void advanceTo(long nowNanos) {
    if (nowNanos < lastNow) {
      throw new IllegalArgumentException(
          "nowNanos must not decrease: " + nowNanos + " after " + lastNow);
    }
    lastNow = nowNanos;
    while (true) {
      long stepAt =
          nextStep < schedule.steps().size()
              ? schedule.steps().get(nextStep).atNanos()
              : Long.MAX_VALUE;
      long outsideAt = outside.any() ? outside.arrivalNanos(outsideArrived + 1) : Long.MAX_VALUE;
      if (Math.min(stepAt, outsideAt) > nowNanos) {
        return;
      }
      if (stepAt <= outsideAt) {
        apply(stepAt, schedule.steps().get(nextStep++).caps());
      } else {
        outsideArrived++;
        if (decide(outsideAt, outside.tokensPerCall()).admitted()) {
          outsideAdmitted++;
        }
      }
    }
  }

  /**
   * Changes the caps at {@code nowNanos} (after what is due before it), keeping what the windows
   * already hold.
   *
   * @throws IllegalArgumentException if a rate names a dimension that has no cap, makes the
   *     requests cap less than 1 per period, or time moves backwards; nothing changes then
   */
  public void setCaps(long nowNanos, Caps caps) {
    specsFor(caps);
    advanceTo(nowNanos);
    apply(nowNanos, caps);
  }

  /** The caps now, as rates per second ({@code null} for an uncapped dimension). */
  public Caps caps() {
    return new Caps(ratePerS(requestsSpec), ratePerS(tokensSpec));
  }

  /** Outside calls that have arrived so far (up to the last time passed in). */
  public long outsideArrived() {
    return outsideArrived;
  }

  /** Outside calls admitted so far; the others were refused. */
  public long outsideAdmitted() {
    return outsideAdmitted;
  }

  private Verdict decide(long nowNanos, double tokenCharge) {
    advance(requests, nowNanos);
    advance(tokens, nowNanos);
    long requestsWait = waitNanos(requests, nowNanos, 1);
    long tokensWait = waitNanos(tokens, nowNanos, tokenCharge);
    boolean admitted = requestsWait == 0 && tokensWait == 0;
    String bound = null;
    long retryAfter = 0;
    if (admitted || rejectedCount) {
      debit(requests, nowNanos, 1);
      debit(tokens, nowNanos, tokenCharge);
    }
    if (!admitted) {
      bound = boundDimension(requestsWait, tokensWait);
      if (rejectedCount) {
        requestsWait = waitNanos(requests, nowNanos, 1);
        tokensWait = waitNanos(tokens, nowNanos, tokenCharge);
      }
      retryAfter = Math.max(requestsWait, tokensWait);
    }
    return new Verdict(
        admitted,
        bound,
        retryAfter,
        remaining(requests),
        remaining(tokens),
        resetNanos(requests, nowNanos),
        resetNanos(tokens, nowNanos));
  }

  /** The requests cap, or {@code null} when requests are not capped. */
  public LimitSpec requestsSpec() {
    return requestsSpec;
  }

  /** The tokens cap, or {@code null} when tokens are not capped. */
  public LimitSpec tokensSpec() {
    return tokensSpec;
  }

  /** Whether rejected calls are debited like admitted ones. */
  public boolean rejectedCount() {
    return rejectedCount;
  }

  @SuppressWarnings("ReferenceEquality") // identity: a spec object not applied yet is applied
  private void apply(long nowNanos, Caps caps) {
    LimitSpec[] specs = specsFor(caps);
    if (specs[0] != requestsSpec) {
      requests.advance(nowNanos);
      requests.setLimit(specs[0].limitPerPeriod());
      requestsSpec = specs[0];
    }
    if (specs[1] != tokensSpec) {
      tokens.advance(nowNanos);
      tokens.setLimit(specs[1].limitPerPeriod());
      tokensSpec = specs[1];
    }
  }

  /**
   * The requests and tokens specs that {@code caps} would make, checked, without changing anything;
   * an unchanged dimension keeps its spec (the same instance).
   */
  private LimitSpec[] specsFor(Caps caps) {
    LimitSpec newRequests = changed(REQUESTS, requestsSpec, caps.requestsPerS());
    if (newRequests != null && newRequests.limitPerPeriod() < 1) {
      throw new IllegalArgumentException(
          "requests_per_s must allow at least 1 request per period of "
              + newRequests.period()
              + ", but was: "
              + caps.requestsPerS());
    }
    return new LimitSpec[] {newRequests, changed(TOKENS, tokensSpec, caps.tokensPerS())};
  }

  private static LimitSpec changed(String dimension, LimitSpec spec, Double ratePerS) {
    if (ratePerS == null) {
      return spec;
    }
    if (spec == null) {
      throw new IllegalArgumentException(
          dimension
              + "_per_s cannot be set: this provider does not cap "
              + dimension
              + " (start it with a "
              + dimension
              + " cap to change one)");
    }
    return new LimitSpec(spec.model(), ratePerS * spec.periodNanos() / 1e9, spec.period());
  }

  private static Double ratePerS(LimitSpec spec) {
    return spec == null ? null : spec.limitPerPeriod() * 1e9 / spec.periodNanos();
  }

  private static String boundDimension(long requestsWait, long tokensWait) {
    if (tokensWait == Verdict.NEVER && requestsWait != Verdict.NEVER) {
      return TOKENS;
    }
    return requestsWait > 0 ? REQUESTS : TOKENS;
  }

  private static void advance(WindowLimiter limiter, long now) {
    if (limiter != null) {
      limiter.advance(now);
    }
  }

  private static long waitNanos(WindowLimiter limiter, long now, double amount) {
    return limiter == null ? 0 : limiter.waitNanos(now, amount);
  }

  private static void debit(WindowLimiter limiter, long now, double amount) {
    if (limiter != null) {
      limiter.debit(now, amount);
    }
  }

  private static double remaining(WindowLimiter limiter) {
    return limiter == null ? Double.POSITIVE_INFINITY : limiter.remaining();
  }

  private static long resetNanos(WindowLimiter limiter, long now) {
    return limiter == null ? 0 : limiter.resetNanos(now);
  }
}
