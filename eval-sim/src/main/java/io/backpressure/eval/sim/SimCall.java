package io.backpressure.eval.sim;

import io.backpressure.core.RejectReason;
import io.backpressure.eval.measure.Recording;
import io.backpressure.eval.workload.Workload;

/**
 * One logical call inside the simulator: its fixed draw (tokens) and its mutable progress. Owned by
 * one simulation thread.
 */
final class SimCall {
  final int queue;
  final Workload.Tenant tenant;
  final int classIndex;
  final long sequence;
  final long submittedNanos;

  /** Input tokens: what the gate is told up front. */
  final long promptTokens;

  /** Output tokens after the {@code max_tokens} clamp: known only from the reply. */
  final long completionTokens;

  /** The workflow that runs this call, or null for an open-loop arrival. */
  final Simulation.Workflow workflow;

  /**
   * When the caller gives up (submission plus the tenant's {@code deadline_s}), or {@code
   * Long.MAX_VALUE}.
   */
  final long deadlineNanos;

  int attempts;

  /** Failed answers (429 or 500) to this call so far: the SDK retry's backoff exponent. */
  int rejections;

  /** When its first upstream attempt was sent, or -1. */
  long firstAttemptNanos = -1;

  int deferrals;
  long slotHeldNanos;

  /** When it took its current slot, or -1 when it holds none. */
  long slotSinceNanos = -1;

  long finishedNanos = -1;
  Recording.Outcome outcome = Recording.Outcome.UNFINISHED;

  /** The gate's booking from its last deferral, presented on the retry. */
  String booking;

  /** Why the gate refused it for good, or null. */
  RejectReason rejectReason;

  /** When the limit that refused it resets (virtual time), or -1. */
  long resetAtNanos = -1;

  SimCall(
      int queue,
      Workload.Tenant tenant,
      int classIndex,
      long sequence,
      long submittedNanos,
      long promptTokens,
      long completionTokens,
      Simulation.Workflow workflow) {
    this.queue = queue;
    this.tenant = tenant;
    this.classIndex = classIndex;
    this.sequence = sequence;
    this.submittedNanos = submittedNanos;
    this.promptTokens = promptTokens;
    this.completionTokens = completionTokens;
    this.workflow = workflow;
    long deadline = tenant.deadlineNanos();
    this.deadlineNanos = deadline == Long.MAX_VALUE ? deadline : submittedNanos + deadline;
  }

  /**
   * Whether the call has ended (answered, failed, expired): what its activity still does is moot.
   */
  boolean ended() {
    return outcome != Recording.Outcome.UNFINISHED;
  }

  /** What the provider counts for this call: prompt plus completion. */
  long totalTokens() {
    return promptTokens + completionTokens;
  }

  boolean holdsSlot() {
    return slotSinceNanos >= 0;
  }
}
