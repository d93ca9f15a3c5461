package io.backpressure.core;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

/** A clock that moves only when told to: virtual time for tests and the simulator. Thread-safe. */
public final class ManualClock implements Clock {
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

  /** Moves time forward by {@code step}. */
  public void advance(Duration step) {
    if (step.isNegative()) {
      throw new IllegalArgumentException("a clock cannot go back: " + step);
    }
    nanos.addAndGet(step.toNanos());
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
