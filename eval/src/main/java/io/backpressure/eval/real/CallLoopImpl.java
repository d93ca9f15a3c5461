package io.backpressure.eval.real;

import io.backpressure.temporal.Backpressure;
import io.temporal.activity.ActivityOptions;
import io.temporal.common.Priority;
import io.temporal.common.RetryOptions;
import io.temporal.failure.ActivityFailure;
import io.temporal.failure.ApplicationFailure;
import io.temporal.workflow.Workflow;
import java.time.Duration;
import java.util.SplittableRandom;

/**
 * The workflow of one closed loop. Each call is one activity; for a gated loop it runs under {@link
 * Backpressure#run}, so a deferral frees the slot and sleeps on a durable timer, and a 429 or a 500
 * the provider still answers runs the call again through the gate (a fresh admission). A call that
 * fails for another reason, or that the gate refuses for its deadline, is skipped, as the
 * simulator's {@code FAILED} and {@code EXPIRED} outcomes are.
 */
public final class CallLoopImpl implements CallLoop {
  /** How long one gated call may be deferred in total before the workflow gives it up. */
  static final Duration MAX_DEFERRAL = Duration.ofMinutes(30);

  /**
   * The heartbeat timeout of a gated activity. The activity gate keeps the heartbeat going while
   * the admitted call runs, so the calls whose activities died with a killed worker process run
   * again on the others about this long after the death, instead of at their start-to-close timeout
   * (the evaluation README, faults). Twice the SDK's longest gap between beats (0.8 of this), so a
   * loaded machine's pauses do not time out a live call.
   */
  static final Duration GATED_HEARTBEAT_TIMEOUT = Duration.ofSeconds(2);

  /** Temporal's constructor. */
  public CallLoopImpl() {}

  /** Room for FIFO tickets inside one class's band of priority keys: 2^24 ms, about 4.6 hours. */
  static final int TICKETS_PER_CLASS = 1 << 24;

  @Override
  public long run(LoopInput in) {
    SplittableRandom random = new SplittableRandom(in.seed());
    String id = Workflow.getInfo().getWorkflowId();
    long ok = 0;
    for (long i = 0; i < in.calls(); i++) {
      if (in.stopAtEpochMillis() > 0 && Workflow.currentTimeMillis() >= in.stopAtEpochMillis()) {
        break;
      }
      long prompt = draw(random, in.promptMin(), in.promptMax());
      long completion = draw(random, in.completionMin(), in.completionMax());
      if (in.maxTokens() != null) {
        completion = Math.min(completion, in.maxTokens());
      }
      UpstreamActivities upstream = Workflow.newActivityStub(UpstreamActivities.class, options(in));
      long now = Workflow.currentTimeMillis();
      CallInput call =
          new CallInput(
              id + "/" + i,
              in.queue(),
              in.tenant(),
              in.priority(),
              now,
              prompt,
              completion,
              in.maxTokens(),
              in.deadlineMillis() > 0 ? now + in.deadlineMillis() : 0,
              in.classMaxWaitMillis(),
              in.answerMarginMillis());
      try {
        if (in.gated()) {
          gated(call, in);
        } else {
          upstream.call(call);
        }
        ok++;
      } catch (ActivityFailure failed) {
        // The activity recorded the call's failure; the loop moves on, as the simulator does.
      }
    }
    return ok;
  }

  private static ActivityOptions options(LoopInput in) {
    ActivityOptions.Builder options =
        ActivityOptions.newBuilder()
            .setStartToCloseTimeout(Duration.ofMillis(in.startToCloseMillis()))
            .setRetryOptions(
                RetryOptions.newBuilder()
                    .setInitialInterval(Duration.ofMillis(100))
                    .setMaximumAttempts(3)
                    .build());
    if (in.gated()) {
      options.setHeartbeatTimeout(GATED_HEARTBEAT_TIMEOUT);
    }
    int key = priorityKey(in.classKey(), in.fifoOriginEpochMillis(), Workflow.currentTimeMillis());
    if (key > 0) {
      options.setPriority(Priority.newBuilder().setPriorityKey(key).build());
    }
    return options.build();
  }

  /**
   * The activity's priority key. Without tickets it is the class key ({@code tn}) or unset. With
   * tickets ({@code fifoOriginEpochMillis > 0}, for the Java test server only) it is {@code (class
   * − 1) · 2^24 + ms since the origin + 1}: the test server's task queue is a heap ordered by the
   * priority key alone, so equal keys leave in heap order and a waiting activity can starve for
   * seconds; the ticket restores first-come-first-served within a class, which is what a Temporal
   * server's task queue does and what the simulator models. A server with a bounded key range gets
   * plain keys (no tickets).
   */
  static int priorityKey(int classKey, long fifoOriginEpochMillis, long nowEpochMillis) {
    if (fifoOriginEpochMillis <= 0) {
      return classKey;
    }
    long ticket =
        Math.min(TICKETS_PER_CLASS - 1, Math.max(0, nowEpochMillis - fifoOriginEpochMillis));
    return Math.max(0, classKey - 1) * TICKETS_PER_CLASS + (int) ticket + 1;
  }

  private static void gated(CallInput call, LoopInput in) {
    while (true) {
      try {
        Backpressure.run(
            MAX_DEFERRAL,
            () -> Workflow.newActivityStub(UpstreamActivities.class, options(in)).call(call));
        return;
      } catch (ActivityFailure failure) {
        if (!(failure.getCause() instanceof ApplicationFailure cause
            && (UpstreamActivities.UPSTREAM_429.equals(cause.getType())
                || UpstreamActivities.UPSTREAM_500.equals(cause.getType())))) {
          throw failure;
        }
      }
    }
  }

  private static long draw(SplittableRandom random, long min, long max) {
    return min == max ? min : min + random.nextLong(max - min + 1);
  }
}
