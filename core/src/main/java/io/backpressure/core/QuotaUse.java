package io.backpressure.core;

import java.time.Instant;
import java.time.ZoneId;
import java.util.Objects;

/**
 * How much of a tenant's or class's quota its current calendar window holds, as a backend's state
 * says at one instant.
 *
 * <p>A value, safe to share between threads.
 *
 * @param holder whose quota
 * @param quota the quota that binds it (for a tenant without its own, the default tenant quota)
 * @param used what the window holds, in the quota's unit (tokens or money): admitted calls' costs,
 *     corrected to their true usage on release
 * @param held the part of {@code used} that calls in flight reserved beyond their estimate and may
 *     give back on release
 * @param windowStart the start of the current window
 * @param resetAt the end of the current window, when the quota renews
 */
public record QuotaUse(
    QuotaHolder holder,
    Limits.Quota quota,
    double used,
    double held,
    Instant windowStart,
    Instant resetAt) {

  public QuotaUse {
    Objects.requireNonNull(holder, "holder");
    Objects.requireNonNull(quota, "quota");
    Objects.requireNonNull(windowStart, "windowStart");
    Objects.requireNonNull(resetAt, "resetAt");
  }

  /**
   * The use of {@code holder}'s quota at {@code now}, from its counter as a backend stores it: the
   * window start it counts in (µs since the epoch; any other value for a counter never used) and
   * what it holds. A counter of a past window holds nothing of the current one.
   */
  public static QuotaUse of(
      QuotaHolder holder,
      Limits.Quota quota,
      ZoneId zone,
      Instant now,
      long counterStartMicros,
      double used,
      double held) {
    Instant start = quota.period().start(now, zone);
    boolean current =
        counterStartMicros == start.getEpochSecond() * 1_000_000 + start.getNano() / 1_000;
    return new QuotaUse(
        holder,
        quota,
        current ? used : 0,
        current ? held : 0,
        start,
        quota.period().end(now, zone));
  }

  /** What the window may still admit: the quota's amount less {@code used}, never below zero. */
  public double remaining() {
    double left = quota.amount() - used;
    return left > 0 ? left : 0;
  }
}
