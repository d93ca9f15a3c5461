package io.backpressure.eval.sim;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongSupplier;

/**
 * How much of a windowed cap any gate that never overfills a window can use when the calls are a
 * large part of the window: an upper bound to read a gate's {@code cap_utilization} against.
 *
 * <p>The model is an endless backlog of calls whose sizes are drawn from a distribution, and a
 * sender that knows everything a gate could: the window's alignment, every waiting call's size. At
 * every instant it sends, among the first {@code lookahead} waiting calls, the largest that still
 * fits; when none fits it waits for the window to make room. {@code lookahead = 1} is arrival
 * order; a larger lookahead is best fit over that many waiting calls, which a gate can only
 * approach when that many calls wait with it at once. The loss is bin packing's: a window that
 * holds 12 000 and calls of 2 400 to 6 000 leave, on average, part of a call's size unused in every
 * window.
 *
 * <ul>
 *   <li>{@code FIXED}: windows {@code [iT, (i+1)T)}, each holding at most the cap (a provider that
 *       counts per clock minute, its alignment known).
 *   <li>{@code SLIDING}: every interval of length {@code T} holds at most the cap (a gate that does
 *       not know the provider's alignment and must be safe for all of them: the safe window,
 *       docs/deploying.md, {@code safe_window}).
 * </ul>
 *
 * <p>Use is what was sent over the cap of the span from the first send to the last window the sends
 * reached; with tens of thousands of calls the span's edges weigh nothing.
 */
public final class PackingBound {
  /** How the provider's window is laid. */
  public enum Window {
    FIXED,
    SLIDING
  }

  private PackingBound() {}

  /**
   * The share of the cap used, between 0 and 1.
   *
   * @param window how the window is laid
   * @param cap what one window holds, > 0
   * @param calls how many calls to send, ≥ 1
   * @param lookahead how many waiting calls the sender may choose from, ≥ 1
   * @param size draws one call's size, each in {@code (0, cap]}
   * @throws IllegalArgumentException naming the argument out of its range, or a size that could
   *     never be sent
   */
  public static double use(Window window, double cap, int calls, int lookahead, LongSupplier size) {
    if (!(cap > 0) || Double.isInfinite(cap)) {
      throw new IllegalArgumentException("cap must be > 0 and finite, got " + cap);
    }
    if (calls < 1) {
      throw new IllegalArgumentException("calls must be >= 1, got " + calls);
    }
    if (lookahead < 1) {
      throw new IllegalArgumentException("lookahead must be >= 1, got " + lookahead);
    }
    List<Long> waiting = new ArrayList<>(lookahead);
    int drawn = 0;
    double sent = 0;
    // Time is counted in windows: a send at t fills the window [floor(t), floor(t) + 1) when
    // fixed, and stays in the sliding window until t + 1.
    double now = 0;
    double inWindow = 0;
    ArrayDeque<double[]> recent = new ArrayDeque<>();
    double first = -1;
    while (drawn < calls || !waiting.isEmpty()) {
      while (waiting.size() < lookahead && drawn < calls) {
        long c = size.getAsLong();
        if (c <= 0 || c > cap) {
          throw new IllegalArgumentException(
              "every call's size must be in (0, cap = " + cap + "], got " + c);
        }
        waiting.add(c);
        drawn++;
      }
      int best = -1;
      for (int i = 0; i < waiting.size(); i++) {
        long c = waiting.get(i);
        if (inWindow + c <= cap && (best < 0 || c > waiting.get(best))) {
          best = i;
        }
      }
      if (best >= 0) {
        long c = waiting.remove(best);
        inWindow += c;
        sent += c;
        recent.addLast(new double[] {now, c});
        first = first < 0 ? now : first;
        continue;
      }
      if (window == Window.FIXED) {
        now = Math.floor(now) + 1;
        inWindow = 0;
        recent.clear();
      } else {
        now = recent.peekFirst()[0] + 1;
        while (!recent.isEmpty() && recent.peekFirst()[0] + 1 <= now) {
          inWindow -= recent.pollFirst()[1];
        }
      }
    }
    double end = window == Window.FIXED ? Math.floor(now) + 1 : now + 1;
    double start = window == Window.FIXED ? Math.floor(first) : first;
    return sent / (cap * (end - start));
  }
}
