package io.backpressure.eval.sim;

import java.util.ArrayDeque;
import java.util.PriorityQueue;

/**
 * The task queue between dispatched activities and free worker slots: which waiting activity takes
 * the next free slot, and when. Single-threaded.
 */
interface Dispatch {

  /** An activity is ready to run and waits for a slot. */
  void enqueue(SimCall call);

  /** The activity that may take a free slot at {@code now}, removed from the queue, or null. */
  SimCall poll(long now);

  /**
   * When {@link #poll(long)} could next return an activity if nothing else changed, or {@code
   * Long.MAX_VALUE} when that depends only on new arrivals.
   */
  long nextReadyNanos(long now);

  /** First come, first served: every configuration but {@code tn}. */
  static Dispatch fifo() {
    return new Fifo();
  }

  /**
   * Temporal's matching-side throttle: waiting activities leave in priority order (class rank, then
   * arrival), at most {@code perSecond} per second (a token bucket with burst 1).
   */
  static Dispatch throttled(double perSecond) {
    return new Throttled(perSecond);
  }

  /** First come, first served. */
  final class Fifo implements Dispatch {
    private final ArrayDeque<SimCall> waiting = new ArrayDeque<>();

    @Override
    public void enqueue(SimCall call) {
      waiting.addLast(call);
    }

    @Override
    public SimCall poll(long now) {
      return waiting.pollFirst();
    }

    @Override
    public long nextReadyNanos(long now) {
      return Long.MAX_VALUE;
    }
  }

  /** Priority order, rate-limited dispatch. */
  final class Throttled implements Dispatch {
    private final PriorityQueue<Entry> waiting = new PriorityQueue<>();
    private final double perNano;
    private double tokens = 1;
    private long lastNanos;
    private long arrivals;

    Throttled(double perSecond) {
      if (!(perSecond > 0)) {
        throw new IllegalArgumentException("dispatch rate must be > 0, got " + perSecond);
      }
      this.perNano = perSecond / 1e9;
    }

    @Override
    public void enqueue(SimCall call) {
      waiting.add(new Entry(call.classIndex, arrivals++, call));
    }

    @Override
    public SimCall poll(long now) {
      refill(now);
      if (waiting.isEmpty() || tokens < 1) {
        return null;
      }
      tokens -= 1;
      return waiting.poll().call;
    }

    @Override
    public long nextReadyNanos(long now) {
      refill(now);
      if (waiting.isEmpty()) {
        return Long.MAX_VALUE;
      }
      return tokens >= 1 ? now : now + (long) Math.ceil((1 - tokens) / perNano);
    }

    private void refill(long now) {
      tokens = Math.min(1, tokens + (now - lastNanos) * perNano);
      lastNanos = now;
    }

    private record Entry(int classIndex, long arrival, SimCall call) implements Comparable<Entry> {
      @Override
      public int compareTo(Entry o) {
        int c = Integer.compare(classIndex, o.classIndex);
        return c != 0 ? c : Long.compare(arrival, o.arrival);
      }
    }
  }
}
