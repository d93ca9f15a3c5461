package io.backpressure.temporal;

import io.temporal.failure.ActivityFailure;
import io.temporal.workflow.Functions;
import io.temporal.workflow.WorkflowThreadLocal;
import java.time.Duration;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The workflow side, explicit form: run one gated activity call and, while the gate defers it,
 * sleep on a durable timer and run it again.
 *
 * <pre>{@code
 * Reply reply = Backpressure.run(Duration.ofMinutes(5), () -> activities.chat(input));
 * }</pre>
 *
 * <p>Requires {@link BackpressureInterceptor} on the worker (either mode): it tells the activity
 * that the workflow does the waiting and hands the deferral's booking to the next run. Without it
 * the activity falls back to server-timed retries and this helper only sees the final outcome.
 *
 * <p>Also defines the failure types every part of this module raises. Each is an {@link
 * io.temporal.failure.ApplicationFailure}; a workflow sees it as the cause of an {@link
 * ActivityFailure}.
 *
 * <p>Its methods run in workflow code, on the workflow's own thread as Temporal requires; they keep
 * no state between workflows.
 */
public final class Backpressure {

  /**
   * The gate deferred the call. Details: {@code [0]} Δ in milliseconds (long), {@code [1]} the
   * booking (string), {@code [2]} when the whole call times out (its schedule-to-close, counted
   * from its first run), in milliseconds since the Unix epoch, 0 for never (long); the workflow
   * hands the booking and that end to the next run. Category {@code BENIGN}. Non-retryable when the
   * workflow waits (helper, transparent interceptor); retryable with {@code nextRetryDelay = Δ}
   * when the server does.
   */
  public static final String DEFERRED = "BackpressureDeferred";

  /**
   * The deferral bound was hit: the call waited, and the next admission would come later than the
   * bound allows. Details: {@code [0]} milliseconds deferred so far (long), {@code [1]} the Δ that
   * was refused (long). Non-retryable.
   */
  public static final String EXPIRED = "BackpressureExpired";

  /**
   * The gate will never admit the request as it stands (for example a cost larger than the burst,
   * or an unknown class). Details: {@code [0]} the {@link io.backpressure.core.RejectReason} name,
   * {@code [1]} the gate's message naming the field. Non-retryable.
   */
  public static final String REJECTED = "BackpressureRejected";

  /**
   * A calendar limit or a quota of the target has no room for the call before its window resets
   * (the gate's {@code LIMIT_REACHED} or {@code QUOTA_EXHAUSTED}). Details: {@code [0]} the {@link
   * io.backpressure.core.RejectReason} name, {@code [1]} the gate's message naming the limit,
   * {@code [2]} the reset instant in milliseconds since the Unix epoch (long). Non-retryable: a
   * workflow that wants to wait for the reset sleeps until then itself.
   */
  public static final String LIMIT_REACHED = "BackpressureLimitReached";

  private static final Duration LONGEST_WAIT = Duration.ofDays(365);

  private static final WorkflowThreadLocal<Scope> SCOPE = new WorkflowThreadLocal<>();

  private Backpressure() {}

  /**
   * Calls {@code activityCall}; while it fails with a {@value #DEFERRED} failure, sleeps Δ with
   * {@code Workflow.sleep} (a durable timer, so the wait survives worker restarts) and calls it
   * again, presenting the deferral's booking. Deterministic on replay.
   *
   * <p>{@code activityCall} must make exactly one synchronous activity call, on the calling
   * workflow thread; it is run again as a whole after each deferral.
   *
   * @param maxWait the bound: when the time deferred so far plus the next Δ would exceed it, the
   *     call ends with an {@link ActivityFailure} whose cause is an {@value #EXPIRED} failure; in
   *     (0, 365 days]
   * @return what {@code activityCall} returned once admitted
   * @throws ActivityFailure as thrown by the activity, or with an {@value #EXPIRED} cause
   */
  public static <R> R run(Duration maxWait, Functions.Func<R> activityCall) {
    DeferralLoop loop = new DeferralLoop(checkMaxWait(maxWait));
    Objects.requireNonNull(activityCall, "activityCall");
    Scope scope = new Scope(null, null);
    while (true) {
      Scope previous = SCOPE.get();
      SCOPE.set(scope);
      try {
        return activityCall.apply();
      } catch (ActivityFailure failure) {
        Failures.Deferral deferral = loop.awaitDeferral(failure);
        scope = new Scope(deferral.booking(), deferral.callEndMillis());
      } finally {
        SCOPE.set(previous);
      }
    }
  }

  /** The scope of a {@link #run} on this workflow thread, or {@code null} outside one. */
  static Scope currentScope() {
    return SCOPE.get();
  }

  static Duration checkMaxWait(Duration maxWait) {
    Objects.requireNonNull(maxWait, "maxWait");
    if (maxWait.isNegative() || maxWait.isZero() || maxWait.compareTo(LONGEST_WAIT) > 0) {
      throw new IllegalArgumentException("maxWait must be in (0, 365 days], got " + maxWait);
    }
    return maxWait;
  }

  /**
   * An activity call made inside {@link #run}, presenting {@code booking} and carrying the whole
   * call's end {@code callEndMillis} ({@link CallDeadline}); both null on the first run.
   */
  record Scope(@Nullable String booking, @Nullable Long callEndMillis) {}
}
