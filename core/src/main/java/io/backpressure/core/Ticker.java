package io.backpressure.core;

/**
 * The monotonic time source of a gate, in nanoseconds: the one seam through which tests and the
 * simulator drive a gate in virtual time. Production uses {@link #system()}. Only differences
 * between two readings are meaningful; for a time that several processes must agree on, see {@link
 * EpochClock}. Implementations are safe to read from any thread.
 */
@FunctionalInterface
public interface Ticker {

  /** Monotonic time in nanoseconds; only differences are meaningful. */
  long nanoTime();

  /** The JVM's monotonic clock ({@link System#nanoTime()}). */
  static Ticker system() {
    return System::nanoTime;
  }
}
