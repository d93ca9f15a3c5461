package io.backpressure.client;

import io.backpressure.core.AdmissionRequest;
import io.backpressure.core.Cost;
import io.backpressure.core.Dimension;
import io.backpressure.core.Gate;
import io.backpressure.core.Grant;
import io.backpressure.core.RejectReason;
import io.backpressure.core.Ticker;
import io.backpressure.core.feedback.ProviderSignal;
import io.backpressure.core.feedback.ProviderSignals;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.Callable;
import java.util.function.Consumer;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

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
 *       ExpiredException}, or {@link RejectedException}; with {@link Builder#maxWait} the call
 *       waits for its turn on the calling thread instead, and only {@link ExpiredException} (its
 *       turn past the wait budget) or {@link RejectedException} reach the caller.
 * </ul>
 *
 * <p>After an admitted call, the grant is released with the call's true usage, or, when the call
 * throws, with the debited cost less its tokens (the provider counted the request but generated
 * nothing). A release never throws, so it cannot mask the call's own outcome.
 *
 * <p>A call the provider refuses with a 429 (as {@link RateLimits} recognises it in what the call
 * throws) does not reach the caller: the gate hears it ({@link Gate#feedback}), which holds the
 * exhausted dimension until the provider's retry-after, and the call asks the gate again, so it is
 * deferred (thrown, waited for, or a durable timer in an activity) like any other; only after
 * {@value #MAX_RESENDS_AFTER_429} such resends does the provider's exception surface.
 *
 * <p><b>Provider feedback.</b> An HTTP-layer hook that sees the provider's answers (Spring AI's
 * {@code OpenAiSendCheck}, LangChain4j's {@code SendCheckingHttpClientBuilder}) hands each to
 * {@link #answered}, and the gate hears it as a gated SDK client's gate does ({@link
 * ProviderFeedback#toGate}): the rate-limit headers adjust its effective caps, a 429's retry-after
 * holds the exhausted dimension as long as the provider says, and a refusal that says a quota or a
 * spend limit is spent (Anthropic's usage-limit 400, a per-day 403) stops the target until its
 * reset. A call whose 429 or stop was heard so is sent again through the gate like a 429 that
 * {@link RateLimits} recognises, and a stop then reaches the caller as the gate's {@link
 * RejectedException} with the reset. On by default; {@link Builder#providerFeedback} turns it off.
 *
 * <p><b>One wait budget per call.</b> With {@link Builder#maxWait}, the call must be sent by its
 * deadline: the moment {@link #call} began plus the wait budget ({@code maxWait}, or the context's
 * own {@link GateContext#maxWait()} if smaller). Every admission of the call, the resends after a
 * 429 included, carries the budget left until that deadline, so a turn that would come after it is
 * refused at once with {@link ExpiredException}: a call never waits longer in all than its budget
 * because a 429 started its wait again.
 *
 * <p><b>The caller's deadline.</b> A context with a deadline ({@link GateContext#withDeadline}, in
 * a framework's per-call attributes as any context) hands it to the gate, counted from the moment
 * {@link #call} or {@link #stream} began, so under an adaptive concurrency limit a call whose
 * deadline does not cover the latency the gate measured at the target ends with {@link
 * ExpiredException} (inside an activity, the {@code BackpressureExpired} failure) instead of being
 * sent. Every later admission of the call (after a 429, or when it was not sent in time) carries
 * what is left of it, measured with the {@linkplain Builder#ticker ticker}; with nothing left the
 * call is not sent. Inside an activity the activity's own timeouts bound it too ({@code
 * ActivityGate}).
 *
 * <p>Thread-safe; one instance serves every call to its gate.
 */
public final class GatedCall {
  private static final Logger log = LoggerFactory.getLogger(GatedCall.class);

  /**
   * How many provider 429s in a row one call is sent again through the gate before the last
   * surfaces; the gate, told of each, normally defers the call until the provider's retry-after.
   */
  static final int MAX_RESENDS_AFTER_429 = 3;

  private final Gate gate;

  /** Outside activities: {@link Admitter#direct()} or {@link Admitter#waiting(Duration)}. */
  private final Admitter outside;

  /** The waiting admitter's bound, or null when {@link #outside} throws deferrals. */
  private final @Nullable Duration maxWait;

  /** Inside activities; null when the Temporal SDK or the temporal module is not on the path. */
  private final @Nullable Admitter activity;

  private final RateLimits rateLimits;

  /** Whether answers heard by {@link #answered} go to the gate. */
  private final boolean providerFeedback;

  /** The time the send bound is measured in (tests move it by hand). */
  private final Ticker ticker;

  /** The call each thread runs through {@link #call}, for {@link #beforeSend()}. */
  private static final ThreadLocal<@Nullable Sending> SENDING = new ThreadLocal<>();

  private GatedCall(Builder builder) {
    this.gate = builder.gate;
    this.maxWait = builder.maxWait;
    this.outside = maxWait == null ? Admitter.direct() : Admitter.waiting(maxWait);
    this.activity =
        temporalAvailable() ? ActivityAdmitter.withMaxWait(gate, builder.activityMaxWait) : null;
    this.rateLimits = builder.rateLimits;
    this.providerFeedback = builder.providerFeedback;
    this.ticker = builder.ticker;
  }

  /**
   * The step around {@code gate} with the defaults: a deferral outside activities throws at once,
   * inside them waits at most 10 minutes, and a 429 is recognised by {@link RateLimits#byName()}.
   */
  public static GatedCall of(Gate gate) {
    return builder(gate).build();
  }

  /** Options of the step around {@code gate}. */
  public static Builder builder(Gate gate) {
    return new Builder(gate);
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
    Admitter admitter = insideActivity() ? Objects.requireNonNull(activity) : outside;
    AdmissionRequest request =
        admitter == outside
            ? request(context, estimate, maxTokens)
            : new AdmissionRequest(
                context.tenant(),
                context.priority(),
                Objects.requireNonNull(estimate, "estimate"),
                maxTokens,
                null,
                null,
                context.deadline());
    long deadline =
        admitter == outside && maxWait != null ? System.nanoTime() + budget(context) : 0;
    long answerBy = answerBy(context);
    for (int resends = 0; ; resends++) {
      // A resend after a 429 is a first attempt: the first admission redeemed the booking.
      AdmissionRequest attempt =
          withDeadlineLeft(
              admitter, resends > 0 ? withBudgetLeft(fresh(request), deadline) : request, answerBy);
      Sending sending =
          new Sending(admitter, request, deadline, answerBy, admitter.admit(gate, attempt));
      Sending outer = SENDING.get();
      SENDING.set(sending);
      R reply;
      try {
        reply = call.call();
      } catch (RuntimeException | Error e) {
        sending.refusal();
        if (failed(admitter, sending, e, resends)) {
          continue; // ask the gate again: it defers the call until the provider's retry-after
        }
        throw e;
      } catch (Exception e) {
        sending.refusal();
        if (failed(admitter, sending, e, resends)) {
          continue;
        }
        throw new IllegalStateException(e);
      } finally {
        SENDING.set(outer);
      }
      Grant grant = sending.grant;
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
  }

  /**
   * Called by an HTTP-layer hook on the thread that sends, at the last moment before the request
   * leaves that the hook can see (Spring AI's OpenAI client: {@code OpenAiSendCheck}): when the
   * call this thread runs through {@link #call} was admitted longer ago than its gate's {@link
   * Gate#sendWithin()}, its grant is released unused and the gate is asked again, on this thread,
   * as the call's admitter asks (waiting, throwing, or ending a Temporal activity). Only the first
   * send of a call is checked; the others (a tool call's follow-up, say) pass. Does nothing on a
   * thread that runs no gated call, or for a gate with no bound.
   *
   * @throws RuntimeException what the admitter throws when the call may not be sent now; {@link
   *     #call} throws the same to its caller, however the client wrapped it on the way
   */
  public static void beforeSend() {
    Sending sending = SENDING.get();
    if (sending != null) {
      sending.owner().checkSendBy(sending);
    }
  }

  /**
   * Called by an HTTP-layer hook on the thread that sent, with the provider's answer to the call
   * this thread runs through {@link #call}: unless the step was built with {@link
   * Builder#providerFeedback providerFeedback(false)}, the gate hears it ({@link Gate#feedback},
   * with the call's grant) as {@link ProviderFeedback#toGate} hands it a gated SDK client's
   * answers, parsed by {@link ProviderSignals#parse}; a 429 that states no retry-after is taken as
   * one of {@link RateLimits#ASSUMED_RETRY_AFTER}. A 429 or a stop heard so is not told to the gate
   * again when the call throws it; the call asks the gate again. Does nothing on a thread that runs
   * no gated call; never throws.
   *
   * @param status the answer's HTTP status
   * @param headers the answer's headers, names in lower case
   * @param body the body of an answer of 400 or more, where providers say why they refused; null
   *     for a success
   */
  public static void answered(
      int status, Map<String, List<String>> headers, @Nullable String body) {
    hearing().answered(status, headers, body);
  }

  /**
   * Where the provider's answers to the call this thread runs through {@link #call} or {@link
   * #stream} go, for an HTTP-layer hook that receives them on another thread: a stream's answer
   * (its status and headers, or its refusal) arrives on the HTTP client's threads, after the
   * calling thread has left the client. Take it on the calling thread, when the request is sent;
   * each answer handed to it is heard as {@link #answered} hears it, from any thread. On a thread
   * that runs no gated call, it ignores what it is handed.
   */
  public static Hearing hearing() {
    Sending sending = SENDING.get();
    if (sending == null) {
      return Hearing.NONE;
    }
    return (status, headers, body) -> sending.owner().hear(sending, status, headers, body);
  }

  /**
   * The provider's answers to one gated call, heard by its gate ({@link #hearing()}). Thread-safe;
   * never throws.
   */
  @FunctionalInterface
  public interface Hearing {

    /** Hears nothing: the hearing of a thread that runs no gated call. */
    Hearing NONE = (status, headers, body) -> {};

    /**
     * The provider answered the call, as {@link GatedCall#answered}.
     *
     * @param status the answer's HTTP status
     * @param headers the answer's headers, names in lower case
     * @param body the body of an answer of 400 or more; null for a success
     */
    void answered(int status, Map<String, List<String>> headers, @Nullable String body);
  }

  private void hear(
      Sending sending, int status, Map<String, List<String>> headers, @Nullable String body) {
    if (!providerFeedback) {
      return;
    }
    try {
      ProviderSignal signal =
          RateLimits.withRetryAfter(ProviderSignals.parse(status, headers, body, Instant.now()));
      gate.feedback(sending.grant, signal);
      if (signal.rateLimited() || signal.meaning() == ProviderSignal.Meaning.STOP_UNTIL_RESET) {
        sending.refusalHeard = true;
      }
    } catch (RuntimeException e) {
      log.warn("provider feedback failed for target {}", gate.target(), e);
    }
  }

  private void checkSendBy(Sending sending) {
    if (sending.sent) {
      return;
    }
    sending.sent = true;
    Duration within = gate.sendWithin();
    long late = ticker.nanoTime() - sending.admittedAt - (within == null ? 0 : within.toNanos());
    if (within == null || late <= 0) {
      return;
    }
    log.debug(
        "call to {} not sent {} ms after its admission's bound; asking the gate again",
        gate.target(),
        late / 1_000_000);
    sending.admitter.release(gate, sending.grant, unused(sending.grant.debited()));
    try {
      sending.grant =
          sending.admitter.admit(
              gate,
              withDeadlineLeft(
                  sending.admitter,
                  withBudgetLeft(fresh(sending.request), sending.deadline),
                  sending.answerBy));
    } catch (RuntimeException e) {
      sending.refused = e;
      throw e;
    }
    sending.admittedAt = ticker.nanoTime();
  }

  /** {@code request} with the budget left until {@code deadline}; as it is when that is 0. */
  private static AdmissionRequest withBudgetLeft(AdmissionRequest request, long deadline) {
    return deadline == 0
        ? request
        : request.withMaxWait(Duration.ofNanos(Math.max(0, deadline - System.nanoTime())));
  }

  /**
   * When the caller gives up on a call made now with {@code context}, on {@link #ticker}; {@link
   * ClientGate#NO_DEADLINE} when the context gives no deadline.
   */
  private long answerBy(GateContext context) {
    Duration answerWithin = context.deadline();
    return answerWithin == null
        ? ClientGate.NO_DEADLINE
        : ticker.nanoTime() + answerWithin.toNanos();
  }

  /**
   * {@code request} with what is left until {@code answerBy}; as it is when that is {@link
   * ClientGate#NO_DEADLINE}.
   *
   * @throws RuntimeException the admitter's expiry when nothing is left: the call is not sent
   */
  private AdmissionRequest withDeadlineLeft(
      Admitter admitter, AdmissionRequest request, long answerBy) {
    if (answerBy == ClientGate.NO_DEADLINE) {
      return request;
    }
    long left = answerBy - ticker.nanoTime();
    if (left <= 0) {
      throw admitter.expired(
          gate.target(), "the call's deadline passed before it could be sent; nothing was sent");
    }
    return request.withDeadline(Duration.ofNanos(left));
  }

  /**
   * {@code request} as a first attempt: its booking was redeemed by the admission given back. Its
   * deadline stays as it was; the caller passes what is left of it.
   */
  static AdmissionRequest fresh(AdmissionRequest request) {
    return new AdmissionRequest(
        request.tenant(),
        request.priority(),
        request.cost(),
        request.maxTokens(),
        null,
        request.maxWait(),
        request.deadline());
  }

  /** What a call released unsent used: none of any dimension. */
  static Cost unused(Cost debited) {
    Cost none = Cost.none();
    for (String dimension : debited.dimensions()) {
      none = none.with(dimension, 0);
    }
    return none;
  }

  /**
   * One admission of a {@link #call} or a {@link #stream} while its call runs: the grant in force
   * (replaced when {@link #beforeSend} asks again) and when it was admitted. Confined to the
   * calling thread, but for the grant and the refusal heard of a stream.
   */
  private final class Sending {
    final Admitter admitter;
    final AdmissionRequest request;
    final long deadline;

    /** When the caller gives up on the call ({@link #answerBy(GateContext)}). */
    final long answerBy;

    /** Written on the calling thread; a stream's handler reads it on the client's threads. */
    volatile Grant grant;

    long admittedAt = ticker.nanoTime();
    boolean sent;

    /**
     * Whether {@link #answered} heard a 429 or a stop for this admission and told the gate; a
     * stream's answer is heard on the client's threads.
     */
    volatile boolean refusalHeard;

    @Nullable RuntimeException refused;

    Sending(
        Admitter admitter, AdmissionRequest request, long deadline, long answerBy, Grant grant) {
      this.admitter = admitter;
      this.request = request;
      this.deadline = deadline;
      this.answerBy = answerBy;
      this.grant = grant;
    }

    GatedCall owner() {
      return GatedCall.this;
    }

    /** Throws the refusal of {@link #beforeSend}'s second admission, if it was refused. */
    void refusal() {
      RuntimeException e = refused;
      if (e != null) {
        throw e;
      }
    }
  }

  /** The waiting admitter's bound, or the context's own wait limit if smaller, in ns. */
  private long budget(GateContext context) {
    Duration bound = Objects.requireNonNull(maxWait);
    Duration own = context.maxWait();
    return (own != null && own.compareTo(bound) < 0 ? own : bound).toNanos();
  }

  /**
   * Releases the grant of a call that threw {@code failure}; when the call has resends left and
   * that is a 429 or a stop the gate heard from the HTTP layer ({@link #answered}), or a provider
   * 429 that {@link RateLimits} recognises (then told to the gate now, which holds the exhausted
   * dimension until the provider's retry-after), answers true: ask the gate again. Never throws.
   */
  private boolean failed(Admitter admitter, Sending sending, Throwable failure, int resends) {
    Grant grant = sending.grant;
    admitter.release(gate, grant, failureUsage(grant.debited()));
    if (resends >= MAX_RESENDS_AFTER_429) {
      return false;
    }
    if (sending.refusalHeard) {
      return true;
    }
    ProviderSignal throttled = rateLimits.signal(failure);
    if (throttled == null) {
      return false;
    }
    try {
      gate.feedback(grant, throttled);
    } catch (RuntimeException e) {
      log.warn("provider feedback failed for target {}", gate.target(), e);
    }
    return true;
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
    return outside.admit(
        gate, withDeadlineLeft(outside, request(context, estimate, maxTokens), answerBy(context)));
  }

  /**
   * Admits a call whose reply arrives later (a stream), as {@link #admit}, and starts it: {@code
   * start} runs on this thread with the check of {@link #beforeSend()} armed, so that a stream that
   * reaches its HTTP client later than the gate's {@link Gate#sendWithin()} after its admission
   * gives its grant back unused and is admitted again before it leaves. The caller releases the
   * stream's {@linkplain Stream#grant() grant in force} with {@link #release} when the stream ends.
   * Not for Temporal activities (see {@link #admit}).
   *
   * @param start starts the stream, whose events may come on other threads, before or after it
   *     returns
   * @throws NotAdmittedException when the call is not admitted, at first or when asked again before
   *     it leaves (however the client wrapped that refusal); no grant is held then
   * @throws RuntimeException what {@code start} throws otherwise, after the grant in force was
   *     released as a failed call's ({@link #failureUsage})
   */
  public Stream stream(
      GateContext context, Cost estimate, @Nullable Long maxTokens, Consumer<Stream> start) {
    Objects.requireNonNull(context, "context");
    Objects.requireNonNull(start, "start");
    AdmissionRequest request = request(context, estimate, maxTokens);
    long deadline = maxWait != null ? System.nanoTime() + budget(context) : 0;
    long answerBy = answerBy(context);
    Sending sending =
        new Sending(
            outside,
            request,
            deadline,
            answerBy,
            outside.admit(gate, withDeadlineLeft(outside, request, answerBy)));
    Stream stream = new Stream(sending);
    Sending outer = SENDING.get();
    SENDING.set(sending);
    try {
      start.accept(stream);
    } catch (RuntimeException | Error e) {
      sending.refusal();
      outside.release(gate, sending.grant, failureUsage(sending.grant.debited()));
      throw e;
    } finally {
      SENDING.set(outer);
    }
    return stream;
  }

  /**
   * A stream {@linkplain #stream started} through this step: its grant, which the send check may
   * have replaced. Thread-safe.
   */
  public static final class Stream {
    private final Sending sending;

    private Stream(Sending sending) {
      this.sending = sending;
    }

    /** The grant in force: the first admission's, or the second's if the stream left late. */
    public Grant grant() {
      return sending.grant;
    }
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
    outside.release(gate, grant, actual);
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
        context.maxWait(),
        context.deadline());
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

  /** Options of a {@link GatedCall}. Not thread-safe; build once. */
  public static final class Builder {
    private final Gate gate;
    private Duration activityMaxWait = Duration.ofMinutes(10);
    private @Nullable Duration maxWait;
    private RateLimits rateLimits = RateLimits.byName();
    private Ticker ticker = Ticker.system();
    private boolean providerFeedback = true;

    private Builder(Gate gate) {
      this.gate = Objects.requireNonNull(gate, "gate");
    }

    /**
     * Inside a Temporal activity without the workflow-side interceptor, the bound on the
     * server-timed wait ({@code ActivityGate.Builder.maxWait}); in (0, 365 days], default 10 min.
     */
    public Builder activityMaxWait(Duration activityMaxWait) {
      this.activityMaxWait = Objects.requireNonNull(activityMaxWait, "activityMaxWait");
      return this;
    }

    /**
     * Outside activities, wait for a deferred call's turn on the calling thread for at most {@code
     * maxWait} ({@link Admitter#waiting(Duration)}; in (0, 1 h]) instead of throwing {@link
     * DeferredException}; the default is to throw.
     */
    public Builder maxWait(Duration maxWait) {
      Admitter.waiting(maxWait); // checks the range now, naming it
      this.maxWait = maxWait;
      return this;
    }

    /** How a provider's 429 is recognised in what the call throws; {@link RateLimits#byName()}. */
    public Builder rateLimits(RateLimits rateLimits) {
      this.rateLimits = Objects.requireNonNull(rateLimits, "rateLimits");
      return this;
    }

    /**
     * The time the send bound ({@link Gate#sendWithin()}) and what is left of a call's deadline
     * ({@link GateContext#withDeadline}) are measured in: how long after its admission a call
     * reached {@link #beforeSend()}. The system's by default; a test moves its own.
     */
    public Builder ticker(Ticker ticker) {
      this.ticker = Objects.requireNonNull(ticker, "ticker");
      return this;
    }

    /**
     * Whether the provider's answers that an HTTP-layer hook hands to {@link #answered} go to the
     * gate: on by default. Off, the gate hears only the 429s that calls throw, as {@link
     * RateLimits} recognises them, each with {@link RateLimits#ASSUMED_RETRY_AFTER}.
     */
    public Builder providerFeedback(boolean on) {
      this.providerFeedback = on;
      return this;
    }

    public GatedCall build() {
      return new GatedCall(this);
    }
  }
}
