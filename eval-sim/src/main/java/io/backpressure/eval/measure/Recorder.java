package io.backpressure.eval.measure;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Collects one run's attempts and calls, whatever produced them (the simulator or the real-mode
 * runner). Times are nanoseconds since the run's start. Not thread-safe: one run, one recorder.
 */
public final class Recorder {
  private final List<Recording.Attempt> attempts = new ArrayList<>();
  private final List<Recording.Call> calls = new ArrayList<>();
  private final long[] queueFinished;

  /** A recorder for a workload with {@code queues} tenants. */
  public Recorder(int queues) {
    this.queueFinished = new long[queues];
    Arrays.fill(queueFinished, -1);
  }

  public void attempt(Recording.Attempt attempt) {
    attempts.add(attempt);
  }

  public void call(Recording.Call call) {
    calls.add(call);
  }

  /**
   * Marks tenant {@code queue} as having finished all its calls at {@code nanos}; the first mark
   * wins.
   */
  public void queueFinished(int queue, long nanos) {
    if (queueFinished[queue] < 0) {
      queueFinished[queue] = nanos;
    }
  }

  /** The run as recorded, ending at {@code endNanos}. */
  public Recording finish(long endNanos) {
    return finish(endNanos, null);
  }

  /** The run as recorded, ending at {@code endNanos}, with what a real run measured. */
  public Recording finish(long endNanos, Recording.Measured measured) {
    return new Recording(
        endNanos, List.copyOf(attempts), List.copyOf(calls), queueFinished.clone(), measured);
  }
}
