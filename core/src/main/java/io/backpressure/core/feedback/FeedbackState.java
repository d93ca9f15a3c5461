package io.backpressure.core.feedback;

import java.util.Map;

/**
 * What a gate has learned from the provider, at one instant: for metrics and {@code admin show}.
 *
 * <p>A copy, safe to read from any thread.
 *
 * @param dimensions per dimension name, in the policy's order
 * @param rampMultiplier the recovery ramp's factor on every effective cap now: 1 when no ramp runs
 * @param outage true while the provider has failed {@code outage_errors} times in a row
 * @param signals answers reported so far
 * @param decreases multiplicative decreases made (429s outside a cooldown)
 * @param adoptions times a {@code limit} header below the configured cap was adopted (or changed)
 * @param ramps recovery ramps started
 * @param ignored malformed header or body values ignored in the reported signals
 */
public record FeedbackState(
    Map<String, Dimension> dimensions,
    double rampMultiplier,
    boolean outage,
    long signals,
    long decreases,
    long adoptions,
    long ramps,
    long ignored) {

  public FeedbackState {
    dimensions = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(dimensions));
  }

  /**
   * One dimension, rates in units per second.
   *
   * <p>A value, safe to read from any thread.
   *
   * @param configured the configured cap {@code C_d}
   * @param effective the effective cap {@code E_d ≤ C_d}
   * @param applied what admission decides against now: {@code E_d} times the ramp's factor
   * @param limit the provider's latest {@code limit} header per second; NaN when none was seen
   * @param outside the estimated rate of traffic the provider counted that this gate did not admit
   * @param cooldownSeconds how long the dimension's cooldown still runs; 0 when none does
   * @param spentSeconds how long the provider's window for the dimension is still spent, as its
   *     last 429 said (reset or {@code retry-after}): admissions that need the dimension wait for
   *     it; 0 when it is not
   */
  public record Dimension(
      double configured,
      double effective,
      double applied,
      double limit,
      double outside,
      double cooldownSeconds,
      double spentSeconds) {}
}
