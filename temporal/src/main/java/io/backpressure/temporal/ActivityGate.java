package io.backpressure.temporal;

import io.backpressure.core.Admission;
import io.backpressure.core.AdmissionRequest;
import io.backpressure.core.Cost;
import io.backpressure.core.Dimension;
import io.backpressure.core.FailOpenGate;
import io.backpressure.core.Gate;
import io.backpressure.core.Grant;
import io.backpressure.core.RejectReason;
import io.backpressure.core.feedback.ProviderSignal;
import io.backpressure.core.feedback.ProviderSignals;
import io.temporal.activity.Activity;
import io.temporal.activity.ActivityExecutionContext;
import io.temporal.common.Priority;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The activity side: runs admission immediately before a provider call and reconciles after it.
 *
 * <pre>{@code
 * public Reply chat(ChatInput input) {            // ChatInput implements GatedRequest
 *   return gate.call(input, () -> provider.chat(input),
 *       reply -> Cost.requests(1).tokens(reply.totalTokens()));
 * }
 * }</pre>
 *
 * <p>What {@code call} does:
 *
 * <ul>
 *   <li><b>Admitted</b>: runs the call, then releases the grant with the true usage. The release
 *       also happens when the call throws, including when the activity is cancelled (the heartbeat
 *       inside the call throws) or the worker shuts down: then it releases what the provider is
 *       assumed to have counted, by default the debited cost with zero tokens (see {@link
 *       Builder#failureUsage}). No reservation outlives the attempt. From the admission to the
 *       release the gate keeps the activity's heartbeat going when it has a heartbeat timeout
 *       ({@link CallHeartbeat}), so a worker's death in the middle of a call is noticed at that
 *       timeout rather than at start-to-close.
 *   <li><b>Deferred</b> for longer than the {@linkplain Builder#waitInPlace wait-in-place
 *       allowance} (none by default; when set, shorter deferrals are slept out on the slot and
 *       admission is asked again): ends the activity at once, before any traffic, so its worker
 *       slot is free in the same moment, with an {@link io.temporal.failure.ApplicationFailure} of
 *       type {@value Backpressure#DEFERRED} (category {@code BENIGN}, so it stays out of failure
 *       metrics and logs). How the wait happens depends on the workflow side:
 *       <ul>
 *         <li>with {@link BackpressureInterceptor} on the worker and the call made under {@link
 *             Backpressure#run} or a {@linkplain BackpressureInterceptor#transparent transparent}
 *             interceptor, the failure is non-retryable and the workflow sleeps Δ on a durable
 *             timer, then runs the activity again with the booking in a header;
 *         <li>otherwise the failure is retryable with {@code nextRetryDelay = Δ}: the server's
 *             retry timer waits (Temporal server and SDK 1.30 or later). The booking and the time
 *             of the first deferral travel to the next attempt in the heartbeat details. Each such
 *             deferral counts as an attempt of the activity's retry policy, so give gated
 *             activities {@code maximumAttempts = 0} (unlimited) or a high value and let {@link
 *             Builder#maxWait} bound the wait.
 *       </ul>
 *   <li><b>Expired</b>: a non-retryable {@value Backpressure#EXPIRED} failure, before any traffic.
 *   <li><b>Rejected</b>: a non-retryable {@value Backpressure#REJECTED} failure naming the reason;
 *       for a calendar limit or a quota, {@value Backpressure#LIMIT_REACHED} with the reset
 *       instant.
 * </ul>
 *
 * <p><b>The activity's timeouts are the call's deadline.</b> Every admission carries a deadline for
 * the call's answer ({@code AdmissionRequest.withDeadline}), read from the activity's timeouts
 * ({@code ActivityExecutionContext.getInfo()}): a call sent now must be answered before this
 * attempt's start-to-close timeout and before the activity's schedule-to-close timeout, whichever
 * ends first, so it is asked with the time left until then. So under an adaptive concurrency limit
 * a call whose attempt would time out before the latency the gate measured at the target is not
 * sent but fails with {@value Backpressure#EXPIRED} at once. A call whose turn (or a concurrency
 * lease) comes after this attempt's end is asked again with the schedule-to-close end alone, since
 * a deferral ends the attempt and the call is answered in a later one, which has a start-to-close
 * of its own; without a schedule-to-close, that wait is bounded as before (the workflow's or {@link
 * Builder#maxWait}). A deferred call resumes with what is left of its schedule-to-close: the server
 * keeps the first schedule time across its retries (way 3), and the workflow hands the first run's
 * end to the next run (ways 1 and 2, in the deferral's details and an activity header). A request's
 * own deadline, when shorter, wins. Times are the server's timestamps against this worker's clock.
 *
 * <p>A gate whose state cannot answer never fails the activity: unless {@code gate} already is a
 * {@link FailOpenGate} (or wraps one, like the Redis module's {@code ResilientRedisGate}, which
 * never throws), it is wrapped in one with its defaults, so a throwing {@code admit} lets the call
 * proceed ungated (logged once per interval) and a throwing {@code release} is logged, without a
 * stack trace, and otherwise ignored.
 *
 * <p>Call it on the activity method's own thread (it reads the activity's execution context), from
 * a regular activity, not a local one. Thread-safe: one instance serves all activities of a worker.
 */
public final class ActivityGate {

  /** The default bound on a server-timed deferral, measured from the call's first deferral. */
  public static final Duration DEFAULT_MAX_WAIT = Duration.ofMinutes(10);

  /**
   * The default allowance for waiting out short deferrals on the slot: none, every deferral frees
   * it.
   */
  public static final Duration DEFAULT_WAIT_IN_PLACE = Duration.ZERO;

  private static final Logger log = LoggerFactory.getLogger(ActivityGate.class);

  /** Warns once per process that deferrals wait on the server's retry timer. */
  private static final ServerTimedWarning SERVER_TIMED = new ServerTimedWarning(log);

  private final Gate gate;
  private final Duration maxWait;
  private final Duration waitInPlace;
  private final BiFunction<Cost, Throwable, Cost> failureUsage;
  private final Map<String, CallHeartbeat> heartbeats = new ConcurrentHashMap<>();

  private ActivityGate(Builder builder) {
    this.gate =
        builder.gate instanceof FailOpenGate
            ? builder.gate
            : FailOpenGate.around(builder.gate).build();
    this.maxWait = builder.maxWait;
    this.waitInPlace = builder.waitInPlace;
    this.failureUsage = builder.failureUsage;
  }

  /** A gate helper with the default bound and failure usage. */
  public static ActivityGate of(Gate gate) {
    return builder(gate).build();
  }

  /** A builder for a helper around {@code gate}. */
  public static Builder builder(Gate gate) {
    return new Builder(gate);
  }

  /**
   * Admits {@code request}, runs {@code call} if admitted, and releases with {@code usage(reply)}.
   *
   * @param request tenant, class and estimated cost; usually the activity's input
   * @param call the provider call; a checked exception it throws is wrapped as by {@link
   *     Activity#wrap(Throwable)}
   * @param usage what the call really cost, read from its reply (for example the reply's token
   *     usage); must not return null
   * @return the call's reply
   * @throws io.temporal.failure.ApplicationFailure of type {@value Backpressure#DEFERRED}, {@value
   *     Backpressure#EXPIRED} or {@value Backpressure#REJECTED} when the call was not admitted
   */
  public <R> R call(GatedRequest request, Callable<R> call, Function<? super R, Cost> usage) {
    Objects.requireNonNull(request, "request");
    Objects.requireNonNull(call, "call");
    Objects.requireNonNull(usage, "usage");
    AdmissionRequest admission =
        new AdmissionRequest(
            request.tenant(), request.priority(), request.cost(), request.maxTokens(), null, null);
    return admitAndCall(admission, call, usage, null);
  }

  /**
   * Where a gated call reports what the provider answered. Used by the one activity thread that
   * runs the call.
   */
  @FunctionalInterface
  public interface Answers {
    /** One answer's status and rate-limit headers, e.g. from {@link ProviderSignals#parse}. */
    void report(ProviderSignal signal);
  }

  /**
   * A provider call that reports the provider's answers (a success, a 429, an error) as it gets
   * them. Runs on the activity's thread.
   */
  @FunctionalInterface
  public interface ReportingCall<R> {
    R call(Answers answers) throws Exception;
  }

  /**
   * As {@link #call(GatedRequest, Callable, Function)}, and the call reports the provider's
   * answers, which the gate learns its effective caps from ({@link Gate#feedback}) after the
   * release:
   *
   * <pre>{@code
   * return gate.call(input, answers -> {
   *   HttpResponse<String> r = http.send(request, BodyHandlers.ofString());
   *   answers.report(ProviderSignals.parse(r.statusCode(), r.headers().map(), r.body(), Instant.now()));
   *   return Reply.of(r);
   * }, reply -> Cost.requests(1).tokens(reply.totalTokens()));
   * }</pre>
   */
  public <R> R call(GatedRequest request, ReportingCall<R> call, Function<? super R, Cost> usage) {
    Objects.requireNonNull(request, "request");
    Objects.requireNonNull(call, "call");
    Objects.requireNonNull(usage, "usage");
    ReportedAnswers answers = new ReportedAnswers();
    AdmissionRequest admission =
        new AdmissionRequest(
            request.tenant(), request.priority(), request.cost(), request.maxTokens(), null, null);
    return admitAndCall(admission, () -> call.call(answers), answers.recording(usage), answers);
  }

  /**
   * As {@link #call(GatedRequest, Callable, Function)}, with the tenant and class taken from the
   * activity's Temporal {@link Priority}: the tenant is the {@code fairnessKey}, the class is
   * {@code "P" + priorityKey} ({@code P3} when the key is unset, Temporal's default). The same keys
   * then order the task queue on servers that honour them. An activity whose priority carries no
   * fairness key is rejected.
   *
   * @param cost the estimated cost of the call
   */
  public <R> R call(Cost cost, Callable<R> call, Function<? super R, Cost> usage) {
    Objects.requireNonNull(cost, "cost");
    Objects.requireNonNull(call, "call");
    Objects.requireNonNull(usage, "usage");
    Priority priority = Activity.getExecutionContext().getInfo().getPriority();
    String tenant = priority == null ? null : priority.getFairnessKey();
    if (tenant == null || tenant.isEmpty()) {
      throw Failures.rejected(
          RejectReason.INVALID_REQUEST,
          "the activity's Priority has no fairnessKey: set it to the tenant, or pass a GatedRequest");
    }
    int key = priority.getPriorityKey() == 0 ? 3 : priority.getPriorityKey();
    return admitAndCall(AdmissionRequest.of(tenant, "P" + key, cost), call, usage, null);
  }

  private <R> R admitAndCall(
      AdmissionRequest request,
      Callable<R> call,
      Function<? super R, Cost> usage,
      @Nullable ReportedAnswers answers) {
    Grant grant = admit(request);
    try {
      return callAdmitted(grant, call, usage);
    } finally {
      if (answers != null) {
        answers.deliver(gate, grant);
      }
    }
  }

  /**
   * Admits {@code request} exactly as {@link #call(GatedRequest, Callable, Function) call} does,
   * but runs nothing: for callers that send the provider call themselves, such as the gated HTTP
   * clients of the {@code openai} and {@code anthropic} modules. Release the grant with {@link
   * #release(Grant, Cost)} once the call is over, also when it failed.
   *
   * @return the grant of the admitted call
   * @throws io.temporal.failure.ApplicationFailure of type {@value Backpressure#DEFERRED}, {@value
   *     Backpressure#EXPIRED} or {@value Backpressure#REJECTED} when the call was not admitted
   */
  public Grant admit(AdmissionRequest request) {
    Objects.requireNonNull(request, "request");
    ActivityScope scope = ActivityScope.current();
    boolean workflowTimed = scope != null && scope.workflowTimed();
    ActivityExecutionContext context = Activity.getExecutionContext();
    ServerDeferral previous = workflowTimed ? null : ServerDeferral.read(context);
    String booking = carriedBooking(scope, previous);
    CallDeadline deadline =
        CallDeadline.of(
            context.getInfo(), scope != null && workflowTimed ? scope.callEndMillis() : null);
    long waitedInPlaceNanos = 0;
    while (true) {
      AdmissionRequest asked = booking == null ? request : request.withBooking(booking);
      long now = System.currentTimeMillis();
      AdmissionRequest sendingNow = within(asked, deadline.sendingNow(now));
      Admission admission = gate.admit(sendingNow);
      if (admission instanceof Admission.Expired expired && !expired.turnIn().isZero()) {
        // The call's turn, or a lease, comes later than this attempt could answer it; but a
        // deferral ends the attempt, and the attempt that runs the call later has a start-to-close
        // of its own: only the whole call's end bounds that wait.
        AdmissionRequest waiting = within(asked, deadline.waiting(now));
        if (!waiting.equals(sendingNow)) {
          admission = gate.admit(waiting);
        }
      }
      if (admission instanceof Admission.Admitted admitted) {
        keepBeating(admitted.grant(), context);
        return admitted.grant();
      }
      if (admission instanceof Admission.Rejected rejected) {
        throw rejected.resetAt() != null
            ? Failures.limitReached(rejected.reason(), rejected.message(), rejected.resetAt())
            : Failures.rejected(rejected.reason(), rejected.message());
      }
      if (admission instanceof Admission.Expired expired) {
        throw Failures.expiredByGate(Math.max(1, ceilMillis(expired.turnIn())), expired.message());
      }
      Admission.Deferred deferred = (Admission.Deferred) admission;
      booking = deferred.booking();
      long retryAfterNanos = deferred.retryAfter().toNanos();
      if (waitedInPlaceNanos + retryAfterNanos <= waitInPlace.toNanos()) {
        sleepInPlace(retryAfterNanos);
        waitedInPlaceNanos += retryAfterNanos;
        continue;
      }
      long retryAfterMillis = Math.max(1, ceilMillis(deferred.retryAfter()));
      log.debug(
          "deferred tenant={} priority={} for {} ms",
          request.tenant(),
          request.priority(),
          retryAfterMillis);
      if (workflowTimed) {
        throw Failures.deferred(retryAfterMillis, booking, true, deadline.callEndMillis());
      }
      long since = previous == null ? now : previous.sinceEpochMillis();
      long waited = Math.max(0, now - since);
      if (waited + retryAfterMillis > maxWait.toMillis()) {
        throw Failures.expired(waited, retryAfterMillis, maxWait, null);
      }
      new ServerDeferral(since, booking).write(context);
      SERVER_TIMED.deferredOnServerTimer(gate.target());
      throw Failures.deferred(retryAfterMillis, booking, false, deadline.callEndMillis());
    }
  }

  /**
   * {@code request} with {@code deadline} for its answer, or its own deadline if that is shorter;
   * as it is when {@code deadline} is null.
   */
  private static AdmissionRequest within(AdmissionRequest request, @Nullable Duration deadline) {
    Duration own = request.deadline();
    return deadline == null || (own != null && own.compareTo(deadline) <= 0)
        ? request
        : request.withDeadline(deadline);
  }

  /**
   * The booking this attempt carries from an earlier deferral of the same call, or {@code null} on
   * a call's first attempt: in the header of a workflow-timed re-run ({@code scope}), else in the
   * state the previous server-timed attempt left ({@code previous}).
   */
  static @Nullable String carriedBooking(
      @Nullable ActivityScope scope, @Nullable ServerDeferral previous) {
    if (scope != null && scope.workflowTimed()) {
      return scope.booking();
    }
    return previous == null ? null : previous.booking();
  }

  /**
   * Keeps the attempt's heartbeat going until {@code grant} is released ({@link CallHeartbeat}).
   */
  private void keepBeating(Grant grant, ActivityExecutionContext context) {
    CallHeartbeat keeper = CallHeartbeat.start(context, () -> heartbeats.remove(grant.id()));
    if (keeper != CallHeartbeat.NONE) {
      heartbeats.put(grant.id(), keeper);
    }
  }

  private static void sleepInPlace(long nanos) {
    try {
      Thread.sleep(nanos / 1_000_000, (int) (nanos % 1_000_000));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw Activity.wrap(e);
    }
  }

  private <R> R callAdmitted(Grant grant, Callable<R> call, Function<? super R, Cost> usage) {
    R reply;
    try {
      reply = call.call();
    } catch (Throwable failure) {
      release(grant, () -> failureUsage.apply(grant.debited(), failure));
      throw Activity.wrap(failure);
    }
    Cost actual;
    try {
      actual = Objects.requireNonNull(usage.apply(reply), "usage returned null");
    } catch (RuntimeException | Error e) {
      release(grant, grant::debited);
      throw e;
    }
    release(grant, () -> actual);
    return reply;
  }

  /**
   * Releases a grant from {@link #admit(AdmissionRequest)} with what the call really used; never
   * throws, as described below. Callable from any thread.
   */
  public void release(Grant grant, Cost actual) {
    Objects.requireNonNull(actual, "actual");
    release(grant, () -> actual);
  }

  /**
   * Releases {@code grant}; never throws, so that it cannot mask the call's own outcome. A usage
   * the gate refuses (one naming a dimension its policy does not have) is logged and replaced by
   * the debited cost, so the grant is still released.
   */
  private void release(Grant grant, Supplier<Cost> actual) {
    CallHeartbeat keeper = heartbeats.remove(grant.id());
    if (keeper != null) {
      keeper.close();
    }
    try {
      gate.release(grant, actual.get());
    } catch (RuntimeException refused) {
      log.warn(
          "release of grant {} with the reported usage failed ({}); releasing the estimate",
          grant.id(),
          refused.toString());
      try {
        gate.release(grant, grant.debited());
      } catch (RuntimeException e) {
        log.warn("release of grant {} failed: {}", grant.id(), e.toString());
      }
    }
  }

  private static long ceilMillis(Duration duration) {
    long millis = duration.toMillis();
    return duration.minusMillis(millis).isZero() ? millis : millis + 1;
  }

  /** The default usage of a failed call: what was debited, with no tokens. */
  private static Cost requestOnly(Cost debited, Throwable failure) {
    return debited.names(Dimension.TOKENS) ? debited.with(Dimension.TOKENS, 0) : debited;
  }

  /** Options of an {@link ActivityGate}. Not thread-safe; build once at worker start. */
  public static final class Builder {
    private final Gate gate;
    private Duration maxWait = DEFAULT_MAX_WAIT;
    private Duration waitInPlace = DEFAULT_WAIT_IN_PLACE;
    private BiFunction<Cost, Throwable, Cost> failureUsage = ActivityGate::requestOnly;

    private Builder(Gate gate) {
      this.gate = Objects.requireNonNull(gate, "gate");
    }

    /**
     * The bound on a server-timed deferral: when the time since the call's first deferral plus the
     * next Δ would exceed it, the activity fails with a non-retryable {@value Backpressure#EXPIRED}
     * failure instead of deferring again. Workflow-timed deferrals are bounded by the workflow side
     * ({@link Backpressure#run}, {@link BackpressureInterceptor#transparent}) instead.
     *
     * @param maxWait in (0, 365 days]
     */
    public Builder maxWait(Duration maxWait) {
      this.maxWait = Backpressure.checkMaxWait(maxWait);
      return this;
    }

    /**
     * The longest time one attempt may wait on its worker slot for short deferrals. A deferral of Δ
     * that still fits in this allowance is slept out on the slot and admission is asked again with
     * the booking; a longer one ends the activity as described on {@link ActivityGate}. A round
     * trip through a durable timer costs a timer, an activity task, about a dozen history events
     * and tens of milliseconds of dispatch latency, so it only pays off for longer waits. Zero (the
     * default) turns waiting in place off: every deferral frees the slot at once.
     *
     * @param waitInPlace in [0, 1 s]
     */
    public Builder waitInPlace(Duration waitInPlace) {
      Objects.requireNonNull(waitInPlace, "waitInPlace");
      if (waitInPlace.isNegative() || waitInPlace.compareTo(Duration.ofSeconds(1)) > 0) {
        throw new IllegalArgumentException("waitInPlace must be in [0, 1 s], got " + waitInPlace);
      }
      this.waitInPlace = waitInPlace;
      return this;
    }

    /**
     * What a call that threw is released with, given the debited cost and the failure. The default
     * keeps every dimension as debited except tokens, which it sets to zero: the provider counted
     * the request but generated nothing. Return the debited cost to err on the strict side.
     */
    public Builder failureUsage(BiFunction<Cost, Throwable, Cost> failureUsage) {
      this.failureUsage = Objects.requireNonNull(failureUsage, "failureUsage");
      return this;
    }

    public ActivityGate build() {
      return new ActivityGate(this);
    }
  }
}
