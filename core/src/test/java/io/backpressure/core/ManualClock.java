package io.backpressure.core;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A clock that moves only when told to: virtual time, in nanoseconds from the start value, for
 * tests and the simulator. A test fixture: it ships in the core's test-jar ({@code
 * backpressure-core}, type {@code test-jar}), not in the library. It serves as a gate's {@link
 * Ticker} and, for backends that take the caller's time, as the {@link EpochClock} shared by
 * everything given the same instance (both read the same value). Thread-safe.
 */
public final class ManualClock implements Ticker, EpochClock {
  private final AtomicLong nanos;

  public ManualClock() {
    this(0);
  }

  public ManualClock(long startNanos) {
    this.nanos = new AtomicLong(startNanos);
  }

  @Override
  public long nanoTime() {
    return nanos.get();
  }

  @Override
  public long epochNanos() {
    return nanos.get();
  }

  /** Moves time forward by {@code step}. */
  public void advance(Duration step) {
    if (step.isNegative()) {
      throw new IllegalArgumentException("a clock cannot go back: " + step);
    }
    nanos.addAndGet(step.toNanos());
  }

  /**
   * This clock as a {@link Clock} in UTC that reads {@link #epochNanos()} as nanoseconds since the
   * Unix epoch, for code that takes a wall clock (a mock provider's calendar days).
   */
  public Clock asClock() {
    return new Clock() {
      @Override
      public Instant instant() {
        long now = epochNanos();
        return Instant.ofEpochSecond(
            Math.floorDiv(now, 1_000_000_000L), Math.floorMod(now, 1_000_000_000L));
      }

      @Override
      public ZoneId getZone() {
        return ZoneOffset.UTC;
      }

      @Override
      public Clock withZone(ZoneId zone) {
        throw new UnsupportedOperationException("a manual clock reads UTC only");
      }
    };
  }

  /** Sets the time; it must not go back. */
  public void set(long newNanos) {
    long current = nanos.get();
    if (newNanos < current) {
      throw new IllegalArgumentException("a clock cannot go back: " + newNanos + " < " + current);
    }
    nanos.set(newNanos);
  }
}
