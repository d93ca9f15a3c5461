package io.backpressure.temporal;

import io.temporal.failure.ActivityFailure;
import io.temporal.workflow.Workflow;
import java.time.Duration;

/**
 * The workflow-side wait of one gated call, shared by {@link Backpressure#run} and the transparent
 * interceptor. Runs in workflow code, so everything it does is deterministic: the clock is {@link
 * Workflow#currentTimeMillis()}, the wait is {@link Workflow#sleep(Duration)}.
 *
 * <p>The first deferral it handles records a version marker ({@value #CHANGE_ID}, version 1). A
 * history written before this code was deployed has no marker there, so on replay the deferral
 * failure is rethrown as it was then, instead of sleeping on a timer the history lacks. New
 * executions record the marker and sleep.
 */
final class DeferralLoop {

  static final String CHANGE_ID = "backpressure-deferral";

  private final Duration maxWait;
  private long firstDeferralAt = -1;

  DeferralLoop(Duration maxWait) {
    this.maxWait = maxWait;
  }

  /**
   * Handles the failure of one attempt: rethrows it unless it is a deferral; throws an expiry when
   * waiting would pass the bound; otherwise sleeps Δ and returns the deferral, whose booking and
   * whole call's end the next attempt carries.
   */
  Failures.Deferral awaitDeferral(ActivityFailure failure) {
    Failures.Deferral deferral = Failures.deferral(failure);
    if (deferral == null
        || Workflow.getVersion(CHANGE_ID, Workflow.DEFAULT_VERSION, 1)
            == Workflow.DEFAULT_VERSION) {
      throw failure;
    }
    long now = Workflow.currentTimeMillis();
    if (firstDeferralAt < 0) {
      firstDeferralAt = now;
    }
    long waited = now - firstDeferralAt;
    if (waited + deferral.retryAfterMillis() > maxWait.toMillis()) {
      throw new ActivityFailure(
          "activity deferred past its bound",
          failure.getScheduledEventId(),
          failure.getStartedEventId(),
          failure.getActivityType(),
          failure.getActivityId(),
          failure.getRetryState(),
          failure.getIdentity(),
          Failures.expired(waited, deferral.retryAfterMillis(), maxWait, failure.getCause()));
    }
    Workflow.sleep(Duration.ofMillis(deferral.retryAfterMillis()));
    return deferral;
  }
}
