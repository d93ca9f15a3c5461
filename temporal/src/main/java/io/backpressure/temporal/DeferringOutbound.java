package io.backpressure.temporal;

import io.temporal.common.interceptors.WorkflowOutboundCallsInterceptor;
import io.temporal.common.interceptors.WorkflowOutboundCallsInterceptorBase;
import io.temporal.failure.ActivityFailure;
import io.temporal.workflow.Async;
import io.temporal.workflow.Promise;
import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * The workflow outbound half of {@link BackpressureInterceptor}: adds the deferral headers and, in
 * transparent mode, waits out deferrals. The first attempt is scheduled on the caller's thread, so
 * a call that is never deferred produces exactly the commands it would without the interceptor.
 */
final class DeferringOutbound extends WorkflowOutboundCallsInterceptorBase {

  private final WorkflowOutboundCallsInterceptor next;
  private final @Nullable Duration transparentMaxWait;

  DeferringOutbound(WorkflowOutboundCallsInterceptor next, @Nullable Duration transparentMaxWait) {
    super(next);
    this.next = next;
    this.transparentMaxWait = transparentMaxWait;
  }

  @Override
  public <R> ActivityOutput<R> executeActivity(ActivityInput<R> input) {
    Duration maxWait = transparentMaxWait;
    if (maxWait == null) {
      Backpressure.Scope scope = Backpressure.currentScope();
      return next.executeActivity(
          scope == null
              ? input
              : Headers.workflowTimed(input, scope.booking(), scope.callEndMillis()));
    }
    ActivityOutput<R> first = next.executeActivity(Headers.workflowTimed(input, null, null));
    Promise<R> result = Async.function(() -> untilAdmitted(input, first.getResult(), maxWait));
    return new ActivityOutput<>(first.getActivityId(), result);
  }

  private <R> R untilAdmitted(ActivityInput<R> input, Promise<R> attempt, Duration maxWait) {
    DeferralLoop loop = new DeferralLoop(maxWait);
    while (true) {
      try {
        return attempt.get();
      } catch (ActivityFailure failure) {
        Failures.Deferral deferral = loop.awaitDeferral(failure);
        attempt =
            next.executeActivity(
                    Headers.workflowTimed(input, deferral.booking(), deferral.callEndMillis()))
                .getResult();
      }
    }
  }
}
