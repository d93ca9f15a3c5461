package io.backpressure.eval.sim;

import java.util.SplittableRandom;

/**
 * The timing constants of the simulated system, in one place so that the real mode can be matched
 * against them.
 *
 * <ul>
 *   <li>The upstream counts a call when it arrives. A 200 answer returns after the workload's
 *       uniform service latency; a 429 answer returns at once, with no service latency (as the mock
 *       provider does).
 *   <li>Every activity dispatch — the first one of a call, and every re-dispatch after a durable
 *       timer or an activity retry — costs {@link #DISPATCH_NANOS} before the activity queues for a
 *       worker slot (the engine's schedule-to-start overhead; the same for every configuration).
 *   <li>A durable timer fires {@link #TIMER_LATE_MIN_NANOS}–{@link #TIMER_LATE_MAX_NANOS} late
 *       (uniform), as Temporal's timers do.
 *   <li>An admission decision and a release take no virtual time (their wall-clock cost is measured
 *       by the real mode and the benchmarks, not here).
 *   <li>The SDK retry of {@code naive}, {@code tn} and {@code gateway} sleeps on the slot for
 *       {@code max(retry-after, U(0, min(8 s, 0.5 s · 2^(n−1))))} after its {@code n}-th 429
 *       (exponential backoff with full jitter), with unlimited attempts.
 * </ul>
 */
public final class TimeModel {
  public static final long DISPATCH_NANOS = 2_000_000L;
  public static final long TIMER_LATE_MIN_NANOS = 5_000_000L;
  public static final long TIMER_LATE_MAX_NANOS = 20_000_000L;
  static final long BACKOFF_BASE_NANOS = 500_000_000L;
  static final long BACKOFF_CAP_NANOS = 8_000_000_000L;

  private TimeModel() {}

  /** How late one durable timer fires. */
  static long timerLateness(SplittableRandom random) {
    return TIMER_LATE_MIN_NANOS + random.nextLong(TIMER_LATE_MAX_NANOS - TIMER_LATE_MIN_NANOS + 1);
  }

  /**
   * The SDK's sleep after the {@code failures}-th consecutive 429 of a call: the longer of the
   * provider's retry-after and full-jitter exponential backoff.
   *
   * @param failures the number of 429s this call has had, at least 1
   * @param retryAfterNanos the provider's retry-after hint
   * @param uniform a draw from [0, 1)
   */
  public static long sdkBackoffNanos(int failures, long retryAfterNanos, double uniform) {
    if (failures < 1) {
      throw new IllegalArgumentException("failures must be >= 1, got " + failures);
    }
    double ceiling =
        failures > 5
            ? BACKOFF_CAP_NANOS
            : Math.min(BACKOFF_CAP_NANOS, (double) BACKOFF_BASE_NANOS * (1L << (failures - 1)));
    long jitter = (long) (uniform * ceiling);
    return Math.max(retryAfterNanos, jitter);
  }
}
