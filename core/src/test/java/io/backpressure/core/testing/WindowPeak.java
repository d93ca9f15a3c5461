package io.backpressure.core.testing;

import java.util.List;
import java.util.function.ToDoubleFunction;
import java.util.function.ToLongFunction;

/**
 * The most admitted within any window of a given length, over every alignment: the check behind "no
 * window of one period holds more than cap × period + burst". Two events fall in one window when
 * their times differ by less than its length. Two pointers over events sorted by time, so one pass.
 * Stateless.
 */
public final class WindowPeak {
  private WindowPeak() {}

  /**
   * The largest sum of {@code amount} over the events within any one window.
   *
   * @param events sorted by {@code time}, ascending
   * @param time an event's time, in the unit of {@code window}
   * @param window the window's length, positive
   */
  public static <T> double max(
      List<T> events,
      ToLongFunction<? super T> time,
      ToDoubleFunction<? super T> amount,
      long window) {
    if (window <= 0) {
      throw new IllegalArgumentException("window must be positive, got " + window);
    }
    double best = 0;
    double inWindow = 0;
    int oldest = 0;
    for (int newest = 0; newest < events.size(); newest++) {
      long now = time.applyAsLong(events.get(newest));
      inWindow += amount.applyAsDouble(events.get(newest));
      while (now - time.applyAsLong(events.get(oldest)) >= window) {
        inWindow -= amount.applyAsDouble(events.get(oldest++));
      }
      best = Math.max(best, inWindow);
    }
    return best;
  }

  /**
   * The most events within any one window; {@code times} sorted ascending, in the unit of {@code
   * window}.
   */
  public static int maxCount(List<Long> times, long window) {
    return (int) max(times, t -> t, t -> 1, window);
  }
}
