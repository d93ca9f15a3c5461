package io.backpressure.temporal;

import io.backpressure.core.RejectReason;
import io.temporal.failure.ActivityFailure;
import io.temporal.failure.ApplicationErrorCategory;
import io.temporal.failure.ApplicationFailure;
import java.time.Duration;
import java.time.Instant;
import org.jspecify.annotations.Nullable;

/**
 * Builds and reads the failure types of {@link Backpressure}. The detail layouts are part of the
 * contract (documented on the type constants) so that workflows in other SDKs can read them.
 */
final class Failures {

  private Failures() {}

  /**
   * A deferral. Workflow-timed: non-retryable, so it reaches the workflow, which sleeps.
   * Server-timed: retryable with {@code nextRetryDelay = Δ}, so the server's retry timer does the
   * waiting.
   */
  static ApplicationFailure deferred(
      long retryAfterMillis, String booking, boolean workflowTimed, long callEndMillis) {
    ApplicationFailure.Builder builder =
        ApplicationFailure.newBuilder()
            .setType(Backpressure.DEFERRED)
            .setMessage("deferred by the admission gate for " + retryAfterMillis + " ms")
            .setDetails(
                retryAfterMillis, booking, callEndMillis == CallDeadline.NONE ? 0L : callEndMillis)
            .setCategory(ApplicationErrorCategory.BENIGN);
    if (workflowTimed) {
      builder.setNonRetryable(true);
    } else {
      builder.setNextRetryDelay(Duration.ofMillis(retryAfterMillis));
    }
    return builder.build();
  }

  /** The bound was hit: waiting {@code retryAfterMillis} more would exceed {@code maxWait}. */
  static ApplicationFailure expired(
      long waitedMillis, long retryAfterMillis, Duration maxWait, @Nullable Throwable cause) {
    return ApplicationFailure.newBuilder()
        .setType(Backpressure.EXPIRED)
        .setMessage(
            "gave up after "
                + waitedMillis
                + " ms of deferral: the next admission is "
                + retryAfterMillis
                + " ms away and the bound is "
                + maxWait.toMillis()
                + " ms")
        .setDetails(waitedMillis, retryAfterMillis)
        .setNonRetryable(true)
        .setCause(cause)
        .build();
  }

  /**
   * The gate answered {@code Expired}: the call's turn, {@code turnInMillis} away, comes after its
   * deadline (the request's wait limit or its class's {@code max_wait}).
   */
  static ApplicationFailure expiredByGate(long turnInMillis, String message) {
    return ApplicationFailure.newBuilder()
        .setType(Backpressure.EXPIRED)
        .setMessage("expired by the admission gate: " + message)
        .setDetails(0L, turnInMillis)
        .setNonRetryable(true)
        .build();
  }

  /**
   * A calendar limit or a quota reached until {@code resetAt}: {@value Backpressure#LIMIT_REACHED}.
   */
  static ApplicationFailure limitReached(RejectReason reason, String message, Instant resetAt) {
    return ApplicationFailure.newBuilder()
        .setType(Backpressure.LIMIT_REACHED)
        .setMessage("admission refused until " + resetAt + " (" + reason + "): " + message)
        .setDetails(reason.name(), message, resetAt.toEpochMilli())
        .setNonRetryable(true)
        .build();
  }

  /** The gate will never admit this request as it stands. */
  static ApplicationFailure rejected(RejectReason reason, String message) {
    return ApplicationFailure.newBuilder()
        .setType(Backpressure.REJECTED)
        .setMessage("admission rejected (" + reason + "): " + message)
        .setDetails(reason.name(), message)
        .setNonRetryable(true)
        .build();
  }

  /** The deferral that {@code failure} reports, or {@code null} when it reports something else. */
  static @Nullable Deferral deferral(ActivityFailure failure) {
    if (failure.getCause() instanceof ApplicationFailure cause
        && Backpressure.DEFERRED.equals(cause.getType())) {
      Long retryAfterMillis = cause.getDetails().get(0, Long.class);
      String booking = cause.getDetails().get(1, String.class);
      Long callEnd =
          cause.getDetails().getSize() > 2 ? cause.getDetails().get(2, Long.class) : null;
      return new Deferral(
          retryAfterMillis == null ? 1 : Math.max(1, retryAfterMillis),
          booking,
          callEnd == null || callEnd <= 0 ? null : callEnd);
    }
    return null;
  }

  /**
   * A deferral read back from its failure.
   *
   * @param retryAfterMillis how long to wait before the next attempt, at least 1
   * @param booking the booking the next attempt presents
   * @param callEndMillis when the whole call times out ({@link CallDeadline}), for the next run to
   *     carry; null when it has no end (or the failure predates this detail)
   */
  record Deferral(long retryAfterMillis, @Nullable String booking, @Nullable Long callEndMillis) {}
}
