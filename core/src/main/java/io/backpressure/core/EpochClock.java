package io.backpressure.core;

import java.time.Instant;

/**
 * A time in nanoseconds since an epoch that every process sharing a gate's state agrees on, for a
 * backend whose workers send their own time with each call (the Redis backend's caller time
 * source). Unlike a {@link Ticker}, two processes' readings are compared with each other, so a real
 * deployment uses {@link #unix()} on clocks kept in step (NTP or chrony); tests in virtual time use
 * a {@code ManualClock} (the core test-jar), whose origin is the same for everything that shares
 * it. Implementations are safe to read from any thread.
 */
@FunctionalInterface
public interface EpochClock {

  /** Nanoseconds since the shared epoch. */
  long epochNanos();

  /** Unix time in nanoseconds from the system clock (microsecond resolution or better). */
  static EpochClock unix() {
    return () -> {
      Instant now = Instant.now();
      return now.getEpochSecond() * 1_000_000_000L + now.getNano();
    };
  }
}
