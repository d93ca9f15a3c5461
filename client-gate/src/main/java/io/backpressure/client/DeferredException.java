package io.backpressure.client;

import java.time.Duration;

/**
 * Not now: the call may go in {@link #retryAfter()} (Δ). Wait that long (on a durable timer where
 * there is one, rather than on a thread), then make the call again inside {@code
 * GateContext.withBooking(booking())} so that it redeems the place the gate booked for it.
 */
public final class DeferredException extends NotAdmittedException {

  private final Duration retryAfter;
  private final String booking;

  public DeferredException(String target, Duration retryAfter, String booking) {
    super(
        target,
        "deferred by the admission gate of " + target + " for " + retryAfter.toMillis() + " ms");
    this.retryAfter = retryAfter;
    this.booking = booking;
  }

  /** Δ: the earliest time from now at which the call could be admitted; never negative. */
  public Duration retryAfter() {
    return retryAfter;
  }

  /** The booking to present on the retry. */
  public String booking() {
    return booking;
  }
}
