package io.backpressure.mock;

/**
 * Totals over every call a {@link MockProvider} has answered since it started (dropped records
 * included).
 *
 * @param requests answered calls to a completion endpoint
 * @param ok answered with 200
 * @param rateLimitedRequests answered with 429 because the requests cap bound
 * @param rateLimitedTokens answered with 429 because the tokens cap bound
 * @param dayLimited refused because a per-day cap was spent ({@link DailyCaps}), with whatever
 *     status the dialect answers that with (429, Anthropic's 400); counted here only
 * @param badRequests answered with a client error: 400, or 413 for a body over the limit
 * @param serverErrors answered with a 5xx: 500 (the error rate, or the {@code errors} fault), or
 *     the provider's overload answer (529 or 503, the {@code overloaded} fault)
 * @param inFlight admitted calls still waiting out their simulated latency
 * @param promptTokens prompt tokens of the 200 answers
 * @param completionTokens completion tokens of the 200 answers
 * @param outsideRequests outside calls that have arrived on the same caps (never recorded, never
 *     counted above)
 * @param outsideAdmitted the outside calls the caps admitted
 * @param uptimeNanos time since the server started
 */
public record Summary(
    long requests,
    long ok,
    long rateLimitedRequests,
    long rateLimitedTokens,
    long dayLimited,
    long badRequests,
    long serverErrors,
    long inFlight,
    long promptTokens,
    long completionTokens,
    long outsideRequests,
    long outsideAdmitted,
    long uptimeNanos) {

  /** All 429 answers of the per-period caps (not {@link #dayLimited}). */
  public long rateLimited() {
    return rateLimitedRequests + rateLimitedTokens;
  }
}
