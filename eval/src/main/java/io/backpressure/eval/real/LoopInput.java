package io.backpressure.eval.real;

/**
 * What one {@link CallLoop} workflow does. Token sizes are drawn inside the workflow from {@code
 * seed}, so a replay draws the same sizes.
 *
 * @param queue the tenant's index in the workload
 * @param tenant the tenant's name ({@code x-tenant})
 * @param priority the tenant's class ({@code x-priority})
 * @param classRank the class's rank, 0 for the highest
 * @param calls how many calls to make, at least 1
 * @param stopAtEpochMillis make no new call at or after this wall-clock instant; 0 for never
 * @param promptMin the least prompt size in tokens
 * @param promptMax the largest prompt size in tokens
 * @param completionMin the least completion size before the {@code max_tokens} clamp
 * @param completionMax the largest completion size before the clamp
 * @param maxTokens the tenant's {@code max_tokens}, or null
 * @param seed the seed of the token draws
 * @param gated whether calls go through the gate ({@code bp}): deferrals wait on durable timers in
 *     the workflow, and an upstream 429 makes the workflow run the call again through the gate
 * @param classKey {@code tn}: the Temporal {@code Priority.priorityKey} of the class (1 is the
 *     highest); 0 to order by no class
 * @param fifoOriginEpochMillis when not 0, every activity's priority key also carries a FIFO ticket
 *     (milliseconds since this instant at scheduling), see {@link CallLoopImpl#priorityKey}
 * @param deadlineMillis the caller gives up this long after submitting a call; 0 for never
 * @param classMaxWaitMillis gated: the class's wait limit for calls without a deadline; 0 for none
 * @param answerMarginMillis gated, with a deadline: what the caller keeps back from its budget for
 *     the provider's answer (the workload's p95 service latency, the figure the simulator uses)
 * @param startToCloseMillis how long one activity may run before Temporal runs it again, on any
 *     worker that polls ({@link RealRunner#startToCloseMillis})
 */
public record LoopInput(
    int queue,
    String tenant,
    String priority,
    int classRank,
    long calls,
    long stopAtEpochMillis,
    long promptMin,
    long promptMax,
    long completionMin,
    long completionMax,
    Long maxTokens,
    long seed,
    boolean gated,
    int classKey,
    long fifoOriginEpochMillis,
    long deadlineMillis,
    long classMaxWaitMillis,
    long answerMarginMillis,
    long startToCloseMillis) {}
