package io.backpressure.integration;

import java.time.Duration;

/**
 * Not now: retry after {@link #retryAfter()} (Δ), presenting {@link #booking()} (with {@link
 * GateContext#withBooking}) so the retry redeems the place the gate already gave the call.
 */
public final class AdmissionDeferredException extends AdmissionException {
  private static final long serialVersionUID = 1L;
  private final Duration retryAfter;
  private final String booking;

  public AdmissionDeferredException(Duration retryAfter, String booking) {
    super("deferred by the admission gate for " + retryAfter.toMillis() + " ms");
    this.retryAfter = retryAfter;
    this.booking = booking;
  }

  /** Δ: the earliest time from now at which this call could be admitted; never negative. */
  public Duration retryAfter() {
    return retryAfter;
  }

  /** The opaque booking to present on the retry. */
  public String booking() {
    return booking;
  }
}
