package io.backpressure.eval.real;

import io.backpressure.core.Dimension;
import io.backpressure.core.Policy;
import java.time.Duration;

/**
 * A gate-side margin for the variation of the delay between an admission and the provider's count
 * of it ({@code --send-margin-ms}). The safe window holds the cap in the gate's own time: no window
 * of the provider's period {@code P} holds more than {@code C·P} admissions. The provider counts
 * arrivals, each an admission plus a send delay, and when the delays of the calls in one window
 * vary by {@code J}, the arrivals of a window of {@code P} come from admissions spread over up to
 * {@code P + J}, which can hold more than {@code C·P} (the evaluation README, faults, has the
 * measured delays). Widening the safe window to {@code P + m} with the same allowance {@code C·P}
 * (every cap times {@code P / (P + m)}) makes every window of {@code P + m} hold at most {@code
 * C·P} admissions, so no provider window of {@code P} sees more than {@code C·P} while the delays
 * vary by at most {@code m}, whatever the state did before: after a state loss too, as long as the
 * buckets restart empty. The price is the same factor on throughput: {@code m = 100 ms} on a
 * one-second period admits at most 1/1.1 of the cap. This is the headroom docs/deploying.md
 * advises, in the form whose bound can be proved. Stateless.
 */
final class SendMargin {
  /** The largest margin accepted, in milliseconds. */
  static final long MAX_MILLIS = 1_000;

  private SendMargin() {}

  /**
   * {@code policy} with its safe window widened by {@code margin} and every cap scaled so that the
   * window's allowance is unchanged; {@code policy} itself when the margin is zero.
   *
   * @throws IllegalArgumentException if the margin is negative or above {@value #MAX_MILLIS} ms, or
   *     {@code policy} has no safe window (without one the gate bounds no window to the cap)
   */
  static Policy widen(Policy policy, Duration margin) {
    if (margin.isNegative() || margin.toMillis() > MAX_MILLIS) {
      throw new IllegalArgumentException(
          "--send-margin-ms must be in [0, " + MAX_MILLIS + "], got " + margin.toMillis());
    }
    if (margin.isZero()) {
      return policy;
    }
    Duration period = policy.safeWindow();
    if (period == null) {
      throw new IllegalArgumentException(
          "--send-margin-ms needs a configuration with the safe window (not bp-no-safe-window)");
    }
    Duration widened = period.plus(margin);
    double factor = period.toNanos() / (double) widened.toNanos();
    Policy scaled = policy;
    for (Dimension d : policy.dimensions()) {
      scaled = scaled.withDimension(new Dimension(d.name(), d.capPerSecond() * factor, d.burst()));
    }
    return new Policy(
        scaled.target(),
        scaled.dimensions(),
        scaled.priorities(),
        scaled.tenantWeights(),
        scaled.defaultTenantWeight(),
        scaled.reservation(),
        scaled.defaultMaxTokens(),
        scaled.idleTtl(),
        widened,
        scaled.shareHorizon(),
        scaled.grantTtl(),
        scaled.priorityMode(),
        scaled.feedback());
  }
}
