package io.backpressure.client;

import io.backpressure.core.AdmissionRequest;
import io.backpressure.core.Cost;
import io.backpressure.core.Dimension;
import io.backpressure.core.Gate;
import io.backpressure.core.Grant;
import io.backpressure.core.RejectReason;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.Callable;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * The admit, call, release step that every framework integration (Spring AI's advisor, the
 * LangChain4j decorators) runs around a provider call; the gated SDK clients run the same step
 * through {@link ClientGate}.
 *
 * <ul>
 *   <li><b>Inside a Temporal activity</b> (the {@code backpressure-temporal} module on the class
 *       path and the call made on an activity's thread), admission and release go through {@link
 *       ActivityAdmitter}, the one bridge to {@code ActivityGate}: a deferral ends the activity at
 *       once with the {@code BackpressureDeferred} failure and the workflow waits on a durable
 *       timer (see the temporal module's README); the booking and the wait limit come from the
 *       activity's headers and retry state, not from the context.
 *   <li><b>Elsewhere</b>, a call that is not admitted throws a {@link NotAdmittedException} before
 *       any traffic: {@link DeferredException} carrying Δ and the booking, {@link
 *       ExpiredException}, or {@link RejectedException}. The caller decides how to wait; this class
 *       never sleeps.
 * </ul>
 *
 * <p>After an admitted call, the grant is released with the call's true usage, or, when the call
 * throws, with the debited cost less its tokens (the provider counted the request but generated
 * nothing). A release never throws, so it cannot mask the call's own outcome.
 *
 * <p>Thread-safe; one instance serves every call to its gate.
 */
public final class GatedCall {
  /**
   * Outside activities: the gate's answer as a client-gate exception, releases that never throw.
   */
  private static final Admitter DIRECT = Admitter.direct();

  private final Gate gate;

  /** Inside activities; null when the Temporal SDK or the temporal module is not on the path. */
  private final @Nullable Admitter activity;

  private GatedCall(Gate gate, @Nullable Admitter activity) {
    this.gate = gate;
    this.activity = activity;
  }

  /** The step around {@code gate}; inside Temporal activities deferrals wait at most 10 minutes. */
  public static GatedCall of(Gate gate) {
    return of(gate, Duration.ofMinutes(10));
  }

  /**
   * The step around {@code gate}.
   *
   * @param activityMaxWait inside a Temporal activity without the workflow-side interceptor, the
   *     bound on the server-timed wait ({@code ActivityGate.Builder.maxWait}); in (0, 365 days]
   */
  public static GatedCall of(Gate gate, Duration activityMaxWait) {
    Objects.requireNonNull(gate, "gate");
    Objects.requireNonNull(activityMaxWait, "activityMaxWait");
    return new GatedCall(
        gate, temporalAvailable() ? ActivityAdmitter.withMaxWait(gate, activityMaxWait) : null);
  }

  /** The gate this step admits through. */
  public Gate gate() {
    return gate;
  }

  /**
   * Admits a call, runs it, and releases the grant with {@code usage(reply)}.
   *
   * @param context tenant, class, wait limit and booking; must not be null
   * @param estimate the cost to debit, for example {@code Cost.requests(1).tokens(promptTokens)}
   * @param maxTokens the call's completion limit, or {@code null}
   * @param usage what the call really cost, read from its reply; {@code null} from it errs on the
   *     strict side: it releases the debited cost
   * @throws NotAdmittedException outside a Temporal activity, when the call is not admitted
   * @throws io.temporal.failure.ApplicationFailure inside one, of {@code ActivityGate}'s types
   * @throws IllegalStateException wrapping a checked exception that {@code call} threw (unchecked
   *     ones pass as they are)
   */
  public <R> R call(
      GateContext context,
      Cost estimate,
      @Nullable Long maxTokens,
      Callable<R> call,
      Function<? super R, Cost> usage) {
    Objects.requireNonNull(context, "context");
    Admitter admitter = insideActivity() ? Objects.requireNonNull(activity) : DIRECT;
    AdmissionRequest request =
        admitter == DIRECT
            ? request(context, estimate, maxTokens)
            : new AdmissionRequest(
                context.tenant(),
                context.priority(),
                Objects.requireNonNull(estimate, "estimate"),
                maxTokens,
                null,
                null);
    Grant grant = admitter.admit(gate, request);
    R reply;
    try {
      reply = call.call();
    } catch (RuntimeException | Error e) {
      admitter.release(gate, grant, failureUsage(grant.debited()));
      throw e;
    } catch (Exception e) {
      admitter.release(gate, grant, failureUsage(grant.debited()));
      throw new IllegalStateException(e);
    }
    Cost actual;
    try {
      actual = usage.apply(reply);
    } catch (RuntimeException | Error e) {
      admitter.release(gate, grant, grant.debited());
      throw e;
    }
    admitter.release(gate, grant, actual == null ? grant.debited() : actual);
    return reply;
  }

  /**
   * Admits a call whose reply arrives later (a stream), for a caller that releases the grant itself
   * with {@link #release}. Not for Temporal activities: there, run the stream to its end inside
   * {@link #call} so the grant is released within the attempt.
   *
   * @throws NotAdmittedException when the call is not admitted
   */
  public Grant admit(GateContext context, Cost estimate, @Nullable Long maxTokens) {
    Objects.requireNonNull(context, "context");
    return DIRECT.admit(gate, request(context, estimate, maxTokens));
  }

  /** The rejection of a call that reached the gate with no {@link GateContext} at all. */
  public RejectedException missingContext() {
    return new RejectedException(
        gate.target(),
        RejectReason.INVALID_REQUEST,
        "the call carries no GateContext: scope one with GateContext.of(tenant, priority).call(...), "
            + "pass it as the per-call attribute '"
            + GateContext.KEY
            + "', or configure a default");
  }

  /**
   * Whether {@link #call} runs inside a Temporal activity on this thread (and so never throws Δ).
   */
  public boolean insideActivity() {
    return activity != null && ActivityAdmitter.onActivityThread();
  }

  /**
   * Releases {@code grant} with {@code actual}; never throws. A usage the gate refuses (one naming
   * a dimension its policy does not have) is logged and replaced by the debited cost, so the grant
   * is still released.
   */
  public void release(Grant grant, Cost actual) {
    DIRECT.release(gate, grant, actual);
  }

  /** What a call that failed is released with: the debited cost with no tokens. */
  public static Cost failureUsage(Cost debited) {
    return debited.names(Dimension.TOKENS) ? debited.with(Dimension.TOKENS, 0) : debited;
  }

  static AdmissionRequest request(GateContext context, Cost estimate, @Nullable Long maxTokens) {
    return new AdmissionRequest(
        context.tenant(),
        context.priority(),
        Objects.requireNonNull(estimate, "estimate"),
        maxTokens,
        context.booking(),
        context.maxWait());
  }

  /**
   * Whether the temporal module and the Temporal SDK are on the class path, checked without loading
   * {@link ActivityAdmitter}, whose references to them would then fail to resolve.
   */
  private static boolean temporalAvailable() {
    try {
      Class.forName(
          "io.backpressure.temporal.ActivityGate", false, GatedCall.class.getClassLoader());
      Class.forName("io.temporal.activity.Activity", false, GatedCall.class.getClassLoader());
      return true;
    } catch (ClassNotFoundException | LinkageError e) {
      return false;
    }
  }
}
