package io.backpressure.mock.limit;

/**
 * What {@link UpstreamLimiter#tryAcquire(long, double)} decided for one call, and the state the
 * provider reports in its rate-limit headers afterwards.
 *
 * <p>Remaining amounts and reset times describe the state <em>after</em> the decision (after the
 * debit of an admitted call, or of a rejected one when rejected calls count). An uncapped dimension
 * reports {@code Double.POSITIVE_INFINITY} remaining and a reset of 0.
 *
 * @param admitted whether the call passed every limiter (and was debited)
 * @param boundDimension on rejection, {@code "requests"} or {@code "tokens"}: the dimension that
 *     bound; when both are short, {@code "requests"}. {@code null} when admitted
 * @param retryAfterNanos on rejection, the time until this same call would be admitted if nothing
 *     else arrived; {@link #NEVER} when its cost exceeds a cap and can never fit; 0 when admitted
 * @param remainingRequests requests left in the current window (bucket: whole requests available)
 * @param remainingTokens tokens left likewise
 * @param resetRequestsNanos time until the requests limiter is back to its initial, unused state
 * @param resetTokensNanos time until the tokens limiter is back to its initial, unused state
 */
public record Verdict(
    boolean admitted,
    String boundDimension,
    long retryAfterNanos,
    double remainingRequests,
    double remainingTokens,
    long resetRequestsNanos,
    long resetTokensNanos) {

  /** {@link #retryAfterNanos()} of a call whose cost exceeds a cap: retrying cannot help. */
  public static final long NEVER = Long.MAX_VALUE;

  /** True when the call was rejected and can never be admitted as it is. */
  public boolean neverFits() {
    return !admitted && retryAfterNanos == NEVER;
  }
}
