package io.backpressure.core;

/**
 * The time source of a gate: the one seam through which tests and the simulator drive the gate in
 * virtual time. Production uses {@link #system()}.
 */
@FunctionalInterface
public interface Clock {

  /** Monotonic time in nanoseconds; only differences are meaningful. */
  long nanoTime();

  /** The JVM's monotonic clock. */
  static Clock system() {
    return System::nanoTime;
  }
}
