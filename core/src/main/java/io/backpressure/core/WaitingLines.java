package io.backpressure.core;

import java.util.ArrayDeque;

/**
 * Per class, the deferred calls in the order of their first attempts, to tell the age of the oldest
 * one still waiting ({@link GateLevels#queueAges()}). Calls are added when first deferred and
 * dropped lazily from the head once admitted, expired or forgotten, so each call is added and
 * dropped once: O(1) amortised per admission, whatever the backlog. Not thread-safe; the gate's
 * lock guards it. The Redis backend keeps the same lines as lists ({@code admit.lua}).
 */
final class WaitingLines {
  /** Whether a booking is still waiting for its turn at a time (µs). */
  interface Liveness {
    boolean waits(String booking, long now);
  }

  private record Entry(String booking, long firstMicros) {}

  private final ArrayDeque<Entry>[] lines;
  private final Liveness liveness;

  @SuppressWarnings({"unchecked", "rawtypes"}) // a generic array is created raw
  WaitingLines(int classes, Liveness liveness) {
    this.lines = new ArrayDeque[classes];
    for (int k = 0; k < classes; k++) {
      lines[k] = new ArrayDeque<>();
    }
    this.liveness = liveness;
  }

  void add(int k, String booking, long firstMicros) {
    lines[k].addLast(new Entry(booking, firstMicros));
  }

  /** Drops the calls at the head of class {@code k}'s line that no longer wait. */
  void purge(int k, long now) {
    ArrayDeque<Entry> line = lines[k];
    while (!line.isEmpty() && !liveness.waits(line.peekFirst().booking(), now)) {
      line.pollFirst();
    }
  }

  /** The first attempt (µs) of the oldest call at the head of class {@code k}'s line, or -1. */
  long oldest(int k) {
    Entry head = lines[k].peekFirst();
    return head == null ? -1 : head.firstMicros();
  }
}
