package io.backpressure.core.spi;

import io.backpressure.core.Dimension;
import io.backpressure.core.Policy;
import io.backpressure.core.PriorityMode;
import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * The numbers the admission rule decides with, derived once from a {@link Policy} in the units the
 * rule uses: rates in units per second, time in whole microseconds (the share horizon also in
 * seconds). The in-memory rule ({@code NestedBuckets.configure}) reads them, and the Redis backend
 * serialises exactly these values for its scripts ({@code PolicyCodec.params}), so the two backends
 * cannot disagree on a number. The essay at the top of {@code NestedBuckets.java} names each
 * quantity.
 *
 * <p>Backend SPI ({@linkplain io.backpressure.core.spi the package} says what that promises): a
 * backend that runs the admission rule elsewhere decides with exactly these numbers. Immutable and
 * thread-safe; dimensions {@code d} and classes {@code k} are indexed in the policy's order,
 * classes highest first.
 */
public final class DerivedPolicy {
  private final Policy policy;
  private final double[] rate;
  private final double[] burst;
  private final double[] largest;
  private final double[] allowance;
  private final double[] classWeight;
  private final double horizonSeconds;
  private final long horizonMicros;
  private final long idleTtlMicros;
  private final long grantTtlMicros;
  private final long grantTtlMillis;
  private final long safeWindowMicros;
  private final boolean strict;

  private DerivedPolicy(Policy policy) {
    this.policy = policy;
    int dims = policy.dimensions().size();
    this.rate = new double[dims];
    this.burst = new double[dims];
    this.largest = new double[dims];
    this.allowance = new double[dims];
    Duration window = policy.safeWindow();
    this.safeWindowMicros = window == null ? 0 : window.toNanos() / 1_000;
    for (int d = 0; d < dims; d++) {
      Dimension dim = policy.dimensions().get(d);
      rate[d] = dim.capPerSecond();
      burst[d] = dim.burst();
      largest[d] = largestCost(dim, window);
      allowance[d] = rate[d] * safeWindowMicros / 1e6;
    }
    int classes = policy.priorities().size();
    this.classWeight = new double[classes];
    for (int k = 0; k < classes; k++) {
      classWeight[k] = policy.priorities().get(k).weight();
    }
    this.horizonSeconds = policy.shareHorizon().toNanos() / 1e9;
    this.horizonMicros = policy.shareHorizon().toNanos() / 1_000;
    this.idleTtlMicros = policy.idleTtl().toNanos() / 1_000;
    long grantNanos = policy.grantTtl().toNanos();
    this.grantTtlMicros = grantNanos / 1_000;
    this.grantTtlMillis = Math.max(1, (grantNanos + 999_999) / 1_000_000);
    this.strict = policy.priorityMode() == PriorityMode.STRICT;
  }

  /** The derived numbers of {@code policy}. */
  public static DerivedPolicy of(Policy policy) {
    return new DerivedPolicy(policy);
  }

  /**
   * The most one call may cost in dimension {@code d} of {@code policy} (units): the burst {@code
   * B_d}, and with a safe window of length {@code P} also no more than the window's allowance
   * {@code C_d · P}. A cost above it can never fit. The same as {@link #largest(int)}, without
   * deriving the rest.
   */
  public static double largestCost(Policy policy, int d) {
    return largestCost(policy.dimensions().get(d), policy.safeWindow());
  }

  private static double largestCost(Dimension dim, @Nullable Duration window) {
    return window == null
        ? dim.burst()
        : Math.min(dim.burst(), dim.capPerSecond() * window.toNanos() / 1e9);
  }

  /** The policy these numbers were derived from. */
  public Policy policy() {
    return policy;
  }

  /** The number of dimensions {@code D}. */
  public int dimensions() {
    return rate.length;
  }

  /** The number of priority classes {@code K}. */
  public int classes() {
    return classWeight.length;
  }

  /**
   * {@code r_d}: the rate at which L1 of dimension {@code d} refills, the cap, units per second.
   */
  public double rate(int d) {
    return rate[d];
  }

  /** {@code B_d}: the most L1 of dimension {@code d} holds, units. */
  public double burst(int d) {
    return burst[d];
  }

  /**
   * The largest cost in dimension {@code d} that can ever fit (see {@link #largestCost}), units.
   */
  public double largest(int d) {
    return largest[d];
  }

  /**
   * {@code C_d · P}: the most the safe window admits in dimension {@code d}, units; 0 without a
   * safe window.
   */
  public double allowance(int d) {
    return allowance[d];
  }

  /** {@code ω_k}: the weight of class {@code k}. */
  public double classWeight(int k) {
    return classWeight[k];
  }

  /** {@code H}: the share horizon, seconds. */
  public double horizonSeconds() {
    return horizonSeconds;
  }

  /** {@code H}: the share horizon, whole microseconds (rounded down). */
  public long horizonMicros() {
    return horizonMicros;
  }

  /** How long an idle queue stays in the share sums, whole microseconds (rounded down). */
  public long idleTtlMicros() {
    return idleTtlMicros;
  }

  /** How long a grant or booking is remembered, whole microseconds (rounded down). */
  public long grantTtlMicros() {
    return grantTtlMicros;
  }

  /**
   * The grant TTL in whole milliseconds, rounded up and at least 1: the expiry Redis keeps a grant
   * for ({@code PX}).
   */
  public long grantTtlMillis() {
    return grantTtlMillis;
  }

  /** Whether the policy has a safe window. */
  public boolean hasSafeWindow() {
    return policy.safeWindow() != null;
  }

  /** {@code P}: the safe window's length, whole microseconds (rounded down); 0 without one. */
  public long safeWindowMicros() {
    return safeWindowMicros;
  }

  /** Whether classes share the cap strictly in order ({@link PriorityMode#STRICT}). */
  public boolean strict() {
    return strict;
  }
}
