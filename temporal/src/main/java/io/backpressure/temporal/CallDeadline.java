package io.backpressure.temporal;

import io.temporal.activity.ActivityInfo;
import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * When the caller of a gated activity gives up on the call's answer, read from the activity's
 * timeouts, for the gate's {@code AdmissionRequest.deadline}.
 *
 * <p>Temporal bounds an activity twice ({@code ActivityOptions}): its <em>start-to-close</em>
 * timeout is the "maximum time of a single Activity attempt", and its <em>schedule-to-close</em>
 * timeout the "total time that a workflow is willing to wait for an Activity to complete", retries
 * included. A call sent now is answered within this attempt, so both bound it: its deadline is the
 * earlier end ({@link #sendingNow}). A call that waits for its turn waits across attempts (a
 * deferral ends the attempt, and the call runs again in a later one, whose own start-to-close
 * counts from its own start), so only the whole call's end bounds that wait ({@link #waiting}). The
 * whole call's end is the first schedule plus schedule-to-close (the server keeps the first
 * schedule time across its retries, so a server-timed deferral resumes with what is left of it); a
 * workflow-timed deferral runs the activity again as a new activity, so the workflow hands the
 * first run's end to the next ({@link Headers#DEADLINE}).
 *
 * <p>Times are the server's timestamps, read against this worker's clock. A value.
 *
 * @param attemptEndMillis when this attempt times out, in ms since the epoch; {@link #NONE} for
 *     never
 * @param callEndMillis when the whole call times out, in ms since the epoch; {@link #NONE} for
 *     never
 */
record CallDeadline(long attemptEndMillis, long callEndMillis) {

  /** No end. */
  static final long NONE = Long.MAX_VALUE;

  /**
   * The deadlines of the attempt {@code info} describes.
   *
   * @param carriedCallEndMillis the whole call's end that the workflow carried from the call's
   *     first run ({@link ActivityScope#callEndMillis()}), or null to read it from {@code info}
   */
  static CallDeadline of(ActivityInfo info, @Nullable Long carriedCallEndMillis) {
    long attemptEnd = end(info.getStartedTimestamp(), info.getStartToCloseTimeout());
    long callEnd =
        carriedCallEndMillis != null
            ? carriedCallEndMillis
            : end(info.getScheduledTimestamp(), info.getScheduleToCloseTimeout());
    return new CallDeadline(attemptEnd, callEnd);
  }

  private static long end(long fromMillis, @Nullable Duration timeout) {
    return timeout == null || timeout.isZero() || timeout.isNegative()
        ? NONE
        : fromMillis + timeout.toMillis();
  }

  /** The deadline of a call sent now: until the earlier end; null when neither is set. */
  @Nullable Duration sendingNow(long nowMillis) {
    return left(Math.min(attemptEndMillis, callEndMillis), nowMillis);
  }

  /** The deadline of a call that waits for its turn in a later attempt; null when unbounded. */
  @Nullable Duration waiting(long nowMillis) {
    return left(callEndMillis, nowMillis);
  }

  private static @Nullable Duration left(long endMillis, long nowMillis) {
    return endMillis == NONE ? null : Duration.ofMillis(Math.max(0, endMillis - nowMillis));
  }
}
