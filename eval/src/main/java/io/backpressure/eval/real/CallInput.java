package io.backpressure.eval.real;

import java.time.Duration;

/**
 * One logical call, as the workflow hands it to the activity.
 *
 * @param callId unique in the run ({@code x-call-id}); every attempt and deferral of the call
 *     carries it
 * @param queue the tenant's index in the workload
 * @param tenant the tenant ({@code x-tenant})
 * @param priority the class ({@code x-priority})
 * @param submittedEpochMillis when the workflow submitted the call (workflow time)
 * @param promptTokens the prompt size in tokens (the gate's estimate)
 * @param completionTokens the completion the provider will produce (sent as {@code max_tokens})
 * @param maxTokens the tenant's {@code max_tokens}, or null (the gate's reservation bound)
 * @param deadlineEpochMillis when the caller gives up on the call; 0 for never
 * @param classMaxWaitMillis the class's wait limit when the call has no deadline; 0 for none
 * @param answerMarginMillis what the caller keeps back from its deadline for the provider's answer
 */
public record CallInput(
    String callId,
    int queue,
    String tenant,
    String priority,
    long submittedEpochMillis,
    long promptTokens,
    long completionTokens,
    Long maxTokens,
    long deadlineEpochMillis,
    long classMaxWaitMillis,
    long answerMarginMillis) {

  /**
   * How much longer the caller waits for the call's turn at {@code nowEpochMillis}, or null for no
   * limit: with a deadline, what is left of it less the answer margin (a later turn could only be
   * answered after the deadline), at least 0.
   */
  Duration maxWait(long nowEpochMillis) {
    if (deadlineEpochMillis > 0) {
      return Duration.ofMillis(
          Math.max(0, deadlineEpochMillis - nowEpochMillis - answerMarginMillis));
    }
    return classMaxWaitMillis > 0 ? Duration.ofMillis(classMaxWaitMillis) : null;
  }

  /**
   * How much longer the caller waits for the call's answer at {@code nowEpochMillis}: what is left
   * of its deadline, at least 0; null when it has none. The gate keeps back from it the latency it
   * measures (under an adaptive concurrency limit), as in the simulator.
   */
  Duration deadline(long nowEpochMillis) {
    return deadlineEpochMillis > 0
        ? Duration.ofMillis(Math.max(0, deadlineEpochMillis - nowEpochMillis))
        : null;
  }

  /** What the provider counts for this call: prompt plus completion. */
  long totalTokens() {
    return promptTokens + completionTokens;
  }
}
