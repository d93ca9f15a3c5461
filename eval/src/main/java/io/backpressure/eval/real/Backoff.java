package io.backpressure.eval.real;

/** The SDK retry's sleep after a 429 (the simulator's {@code TimeModel.sdkBackoffNanos}). */
@FunctionalInterface
public interface Backoff {

  /**
   * How long to sleep on the slot before the next attempt.
   *
   * @param failures the call's 429s so far, at least 1
   * @param retryAfterNanos the provider's retry-after
   * @param uniform a draw from [0, 1)
   * @return how long to sleep on the slot before the next attempt, in nanoseconds
   */
  long sleepNanos(int failures, long retryAfterNanos, double uniform);
}
