package io.backpressure.mock.limit;

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
 * <p>Not thread-safe: callers that share one instance across threads synchronise around {@link
 * #tryAcquire(long, double)}. Holds no clock: the caller passes the time, so the same limiter
 * serves the HTTP server (wall clock) and the simulator (virtual time).
 */
public final class UpstreamLimiter {

  /** The name of the requests dimension, as in the 429 body's {@code type}. */
  public static final String REQUESTS = "requests";

  /** The name of the tokens dimension, as in the 429 body's {@code type}. */
  public static final String TOKENS = "tokens";

  private final LimitSpec requestsSpec;
  private final LimitSpec tokensSpec;
  private final WindowLimiter requests;
  private final WindowLimiter tokens;
  private final boolean rejectedCount;
  private long lastNow = Long.MIN_VALUE;

  /**
   * @param requests the requests cap, or {@code null} for none
   * @param tokens the tokens cap, or {@code null} for none
   * @param rejectedCount whether rejected calls are debited like admitted ones
   * @throws IllegalArgumentException if the requests cap is below 1 per period, which no request
   *     could ever fit
   */
  public UpstreamLimiter(LimitSpec requests, LimitSpec tokens, boolean rejectedCount) {
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
    if (nowNanos < lastNow) {
      throw new IllegalArgumentException(
          "nowNanos must not decrease: " + nowNanos + " after " + lastNow);
    }
    lastNow = nowNanos;
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
