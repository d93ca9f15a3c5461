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
 * @param meaning what the answer says about capacity ({@link Meaning}); the seven-value constructor
 *     takes it from the status ({@link Meaning#ofStatus}), the parser also from the body
 */
public record ProviderSignal(
    int status,
    Set<String> exhausted,
    Map<String, RateLimit> limits,
    @Nullable Duration retryAfter,
    @Nullable Cost usage,
    int ignored,
    boolean resumed,
    Meaning meaning) {

  /** HTTP 429 Too Many Requests. */
  public static final int TOO_MANY_REQUESTS = 429;

  /** Anthropic's 529: the provider is overloaded for everyone. */
  public static final int OVERLOADED = 529;

  /**
   * What one answer says about the provider's capacity, and so what the gate does with it. The
   * table of which provider answer means which is in {@link ProviderSignals}.
   */
  public enum Meaning {
    /** An answer (2xx, 3xx): its rate-limit headers are read, nothing else. */
    ANSWERED,
    /**
     * Too many requests or tokens for a cap: the exhausted dimensions' effective caps are cut and
     * held until the provider's reset or {@code retry-after}.
     */
    SLOW_DOWN,
    /**
     * The provider is overloaded for everyone (Anthropic's 529, Gemini's and Bedrock's 503): every
     * dimension is held for the {@code retry-after} (else the policy's cooldown); the caps are not
     * cut, because the caps did not get lower.
     */
    OVERLOADED,
    /**
     * A spend limit or a per-day quota is reached: nothing helps until it resets. The exhausted
     * dimensions (every one when none is named) are held until the reset the provider gave ({@code
     * retryAfter}), else for {@link io.backpressure.core.spi.EffectiveCaps#STOP_HOLD}; the caps are
     * not cut, because the per-minute caps are not what was hit.
     */
    STOP_UNTIL_RESET,
    /** The provider failed (another 5xx, or no answer): counts toward an outage. */
    PROVIDER_ERROR,
    /**
     * An answer about the request, not about capacity (400, 401, 403, 404, …): the caps learn
     * nothing from it but its rate-limit headers.
     */
    NOT_CAPACITY;

    /**
     * The meaning a status alone gives: 429 slows down, 529 is overloaded, another 5xx or 0 (no
     * answer) is a provider error, another 4xx is not about capacity, anything else answered.
     */
    public static Meaning ofStatus(int status) {
      if (status == TOO_MANY_REQUESTS) {
        return SLOW_DOWN;
      }
      if (status == ProviderSignal.OVERLOADED) {
        return Meaning.OVERLOADED;
      }
      if (status == 0 || status >= 500) {
        return PROVIDER_ERROR;
      }
      return status >= 400 ? NOT_CAPACITY : ANSWERED;
    }
  }

  /** A signal whose meaning is the one its status gives ({@link Meaning#ofStatus}). */
  public ProviderSignal(
      int status,
      Set<String> exhausted,
      Map<String, RateLimit> limits,
      @Nullable Duration retryAfter,
      @Nullable Cost usage,
      int ignored,
      boolean resumed) {
    this(status, exhausted, limits, retryAfter, usage, ignored, resumed, Meaning.ofStatus(status));
  }

  public ProviderSignal {
    Objects.requireNonNull(meaning, "meaning");
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
    return new ProviderSignal(
        status, exhausted, more, retryAfter, usage, ignored, resumed, meaning);
  }

  /** This signal with what the provider counted for the call. */
  public ProviderSignal withUsage(Cost usage) {
    return new ProviderSignal(
        status, exhausted, limits, retryAfter, usage, ignored, resumed, meaning);
  }

  /** True when the answer says to slow down: a rate-limit 429 ({@link Meaning#SLOW_DOWN}). */
  public boolean rateLimited() {
    return meaning == Meaning.SLOW_DOWN;
  }

  /**
   * True when the provider failed ({@link Meaning#PROVIDER_ERROR}: a 5xx that is not an overload,
   * or no answer at all), and this is not the resume signal.
   */
  public boolean providerError() {
    return !resumed && meaning == Meaning.PROVIDER_ERROR;
  }
}
