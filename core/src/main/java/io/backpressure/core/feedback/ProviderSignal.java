package io.backpressure.core.feedback;

import io.backpressure.core.Cost;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * What one provider answer says about the caps: its status, which dimension it found exhausted, and
 * per dimension the limit, what remains and when it resets. Built by {@link ProviderSignals#parse}
 * from an answer's headers and body, or directly (the simulator does). Immutable.
 *
 * <p>Dimension names are the gate's: {@code requests}, {@code tokens}, and for Anthropic's separate
 * counters {@code input_tokens} and {@code output_tokens}. A dimension the policy does not cap is
 * ignored by the gate.
 *
 * @param status the HTTP status; 0 when no answer came (connection refused, timeout)
 * @param exhausted the dimensions the provider said were exhausted (from the error body's type, or
 *     a zero {@code remaining} on a 429); empty when it did not say
 * @param limits what the rate-limit headers said, per dimension
 * @param retryAfter the provider's {@code retry-after} / {@code retry-after-ms}; null when absent
 * @param usage what the call used, when the caller knows it (the reply's usage); the gate counts
 *     the larger of this and what it debited as its own traffic; null to count the debit alone
 * @param ignored how many header or body values were malformed and ignored while parsing
 * @param resumed true for the signal that gating resumes after a period in which calls went unpaced
 *     (the gate failed open): the gate restarts with its recovery ramp
 */
public record ProviderSignal(
    int status,
    Set<String> exhausted,
    Map<String, RateLimit> limits,
    @Nullable Duration retryAfter,
    @Nullable Cost usage,
    int ignored,
    boolean resumed) {

  /** HTTP 429 Too Many Requests. */
  public static final int TOO_MANY_REQUESTS = 429;

  public ProviderSignal {
    exhausted = Set.copyOf(Objects.requireNonNull(exhausted, "exhausted"));
    limits = Map.copyOf(Objects.requireNonNull(limits, "limits"));
    if (status < 0 || status > 999) {
      throw new IllegalArgumentException("status must be in [0, 999], got " + status);
    }
    if (retryAfter != null && retryAfter.isNegative()) {
      throw new IllegalArgumentException("retryAfter must not be negative, got " + retryAfter);
    }
    if (ignored < 0) {
      throw new IllegalArgumentException("ignored must be >= 0, got " + ignored);
    }
  }

  /**
   * One dimension's rate-limit headers. Each part is null when the provider did not send it (or
   * sent something unreadable).
   *
   * <p>A value, safe to read from any thread.
   *
   * @param limit the most the provider allows per its accounting period, in the dimension's units
   * @param remaining what is left of it now
   * @param reset how long until the allowance is whole again
   */
  public record RateLimit(
      @Nullable Double limit, @Nullable Double remaining, @Nullable Duration reset) {
    public RateLimit {
      if (limit != null && !(limit >= 0 && Double.isFinite(limit))) {
        throw new IllegalArgumentException("limit must be a finite number >= 0, got " + limit);
      }
      if (remaining != null && !Double.isFinite(remaining)) {
        throw new IllegalArgumentException("remaining must be finite, got " + remaining);
      }
      if (reset != null && reset.isNegative()) {
        throw new IllegalArgumentException("reset must not be negative, got " + reset);
      }
    }
  }

  /** An answer with only a status (no rate-limit headers). */
  public static ProviderSignal ofStatus(int status) {
    return new ProviderSignal(status, Set.of(), Map.of(), null, null, 0, false);
  }

  /** A 429 naming the exhausted dimension, with the provider's retry-after (may be null). */
  public static ProviderSignal rateLimited(String dimension, Duration retryAfter) {
    return new ProviderSignal(
        TOO_MANY_REQUESTS, Set.of(dimension), Map.of(), retryAfter, null, 0, false);
  }

  /** The signal that gating resumes after a fail-open period: start the recovery ramp. */
  public static ProviderSignal resumedAfterOutage() {
    return new ProviderSignal(0, Set.of(), Map.of(), null, null, 0, true);
  }

  /** This signal with the rate-limit headers of one dimension. */
  public ProviderSignal withLimit(
      String dimension, Double limit, Double remaining, Duration reset) {
    Map<String, RateLimit> more = new java.util.HashMap<>(limits);
    more.put(dimension, new RateLimit(limit, remaining, reset));
    return new ProviderSignal(status, exhausted, more, retryAfter, usage, ignored, resumed);
  }

  /** This signal with what the provider counted for the call. */
  public ProviderSignal withUsage(Cost usage) {
    return new ProviderSignal(status, exhausted, limits, retryAfter, usage, ignored, resumed);
  }

  /** True for a 429. */
  public boolean rateLimited() {
    return status == TOO_MANY_REQUESTS;
  }

  /** True when the provider failed: a 5xx, or no answer at all (and not the resume signal). */
  public boolean providerError() {
    return !resumed && (status == 0 || status >= 500);
  }
}
