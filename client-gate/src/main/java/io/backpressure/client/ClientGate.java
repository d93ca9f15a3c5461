package io.backpressure.client;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.backpressure.core.AdmissionRequest;
import io.backpressure.core.Gate;
import io.backpressure.core.Grant;
import io.backpressure.core.RejectReason;
import io.backpressure.core.Ticker;
import io.backpressure.core.feedback.ProviderSignal;
import io.backpressure.core.feedback.ProviderSignals;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * The gate in front of one provider API, independent of the SDK: the {@code openai} and {@code
 * anthropic} modules wrap their SDK's HTTP client around it.
 *
 * <p>For each request the SDK sends to a gated endpoint ({@link Dialect#gates}):
 *
 * <ol>
 *   <li>read the JSON body: model, prompt tokens (counted with the model's tokenizer, see the
 *       {@code tokens} module), completion limit, stream flag;
 *   <li>choose the gate by the model ({@link ModelRoutes}) and the caller (the request's {@link
 *       GateContext#HEADERS gate headers}, else the {@link CallerResolver}, by default the thread's
 *       {@link GateContext});
 *   <li>let the dialect adjust the body (a stream is asked to report its usage);
 *   <li>admit through the {@link Admitter}, with the call's deadline ({@link #admit(byte[],
 *       Function, Duration) which one}): the call is sent only when admitted, otherwise the
 *       admitter's exception goes to the caller and nothing is sent;
 *   <li>hand every answer's status and headers to {@link ProviderFeedback} (by default the call's
 *       gate, which learns its effective caps and the provider's retry-after from them);
 *   <li>a 429, or a refusal the provider's signals read as a stop (a daily quota or spend limit
 *       spent), is not handed to the caller: the transport asks the gate again (see {@link
 *       GatedTransport#execute}), so the call is deferred, waits, expires or is refused with the
 *       limit's reset as the admitter says;
 *   <li>release the grant exactly once: with the answer's usage when its body is read to the end or
 *       closed, with what a cut or cancelled stream proves, with one request and no tokens when the
 *       provider answered an error or the transport failed.
 * </ol>
 *
 * Thread-safe: one instance serves every call of a client.
 */
public final class ClientGate {

  static final ObjectMapper JSON = new ObjectMapper();

  /**
   * How many refusals in a row ({@link #resends}) one call is sent again through the gate before
   * the last reaches the caller; with provider feedback on, the gate defers the call until the
   * provider's retry-after instead, so this bounds only a gate that does not hear the provider.
   */
  public static final int MAX_RESENDS_AFTER_429 = 3;

  private final Dialect dialect;
  private final ModelRoutes routes;
  private final Admitter admitter;
  private final CallerResolver resolver;
  private final ProviderFeedback feedback;
  private final CostModel costModel;
  private final Ticker ticker;
  private final @Nullable Duration deadline;

  private ClientGate(Builder builder) {
    this.dialect = builder.dialect;
    this.routes = Objects.requireNonNull(builder.routes, "routes: set a gate or routes");
    this.admitter = builder.admitter;
    this.resolver = builder.resolver;
    this.feedback = builder.feedback;
    this.costModel = builder.costModel;
    this.ticker = builder.ticker;
    this.deadline = builder.deadline;
  }

  /** A builder for the provider API that {@code dialect} describes. */
  public static Builder builder(Dialect dialect) {
    return new Builder(dialect);
  }

  /** Whether a request with this method and path is gated; others pass through untouched. */
  public boolean gates(String method, List<String> pathSegments) {
    return dialect.gates(method, pathSegments);
  }

  /**
   * Admits the call whose JSON body is {@code requestBody}.
   *
   * @return the admitted exchange, whose {@link Exchange#body()} is to be sent
   * @throws RuntimeException the admitter's exception when the call must not be sent now, or when
   *     it cannot be gated (no caller, no route for its model, a body that is not a JSON object)
   */
  public Exchange admit(byte[] requestBody) {
    return admit(requestBody, name -> null);
  }

  /**
   * As {@link #admit(byte[])}, with the caller read first from the request's headers ({@link
   * GateContext#fromHeaders}); the adapter removes those headers before sending.
   *
   * @param header the first value of a request header by name, or null when absent
   */
  public Exchange admit(byte[] requestBody, Function<String, String> header) {
    return admit(requestBody, header, null);
  }

  /**
   * As {@link #admit(byte[], Function)}, for a request the SDK sends with a timeout of its own.
   *
   * <p>The call's deadline for its answer, handed to the gate ({@code
   * AdmissionRequest.withDeadline}), is the shortest of: the caller's ({@link
   * GateContext#withDeadline}, from the request's {@value GateContext#DEADLINE_HEADER} header or
   * the caller's context), {@code timeout}, and the client's ({@link Builder#deadline}); none when
   * none is given. Under an admitter whose deferrals are sent by a later attempt ({@link
   * Admitter#defersToALaterAttempt()}: {@link ActivityAdmitter}, whose activity's own timeouts
   * bound the call), {@code timeout} is left out: it bounds the SDK call of the attempt that sends
   * the call, not the wait for its turn. The shortest wins because the call is abandoned when the
   * first of them passes. A call whose deadline is zero is not sent: the admitter's expiry ({@link
   * Admitter#expired}) is thrown without asking the gate. Under an adaptive concurrency limit the
   * gate answers {@code Expired} at once a call whose deadline does not cover the latency it
   * measured at the target, so such a call is not sent to time out. Each later admission of the
   * call ({@link #again}) carries what is left of the deadline, measured with the {@linkplain
   * Builder#ticker ticker}.
   *
   * @param timeout the SDK's timeout for this request (the time it waits for the answer), or null
   *     (or zero) when it has none
   */
  public Exchange admit(
      byte[] requestBody, Function<String, String> header, @Nullable Duration timeout) {
    ObjectNode body = parse(requestBody);
    ProviderCall call;
    Duration ownDeadline;
    try {
      call = dialect.read(body);
      ownDeadline = GateContext.millis(header, GateContext.DEADLINE_HEADER);
    } catch (IllegalArgumentException e) {
      throw admitter.refused(RejectReason.INVALID_REQUEST, e.getMessage());
    }
    Gate gate =
        routes
            .gateFor(call.model())
            .orElseThrow(
                () ->
                    admitter.refused(
                        RejectReason.INVALID_REQUEST,
                        "no route for model '" + call.model() + "'; routes: " + routes));
    GateContext caller;
    try {
      caller = GateContext.fromHeaders(header);
    } catch (IllegalArgumentException e) {
      throw admitter.refused(RejectReason.INVALID_REQUEST, e.getMessage());
    }
    if (caller == null) {
      caller = resolver.resolve(call);
    }
    if (caller == null) {
      throw admitter.refused(
          RejectReason.INVALID_REQUEST,
          "no caller for this call: make it inside try (GateContext.Scope scope ="
              + " GateContext.of(tenant, priority).open()) { ... }, set the GateContext headers (for the"
              + " asynchronous clients), or configure a CallerResolver");
    }
    byte[] sent = dialect.prepare(body, call) ? write(body) : requestBody;
    AdmissionRequest request =
        new AdmissionRequest(
            caller.tenant(),
            caller.priority(),
            costModel.estimate(call),
            call.maxTokens(),
            caller.booking(),
            caller.maxWait());
    Duration answerWithin =
        shortest(
            shortest(ownDeadline, caller.deadline()),
            shortest(
                timeout == null || timeout.isZero() || admitter.defersToALaterAttempt()
                    ? null
                    : timeout,
                deadline));
    long deadlineAt =
        answerWithin == null ? NO_DEADLINE : ticker.nanoTime() + answerWithin.toNanos();
    return admitted(gate, request, deadlineAt, call, sent);
  }

  /** {@link Exchange#deadlineAt()} of a call that has no deadline. */
  static final long NO_DEADLINE = Long.MIN_VALUE;

  /**
   * Admits {@code request} at {@code gate} with what is left until {@code deadlineAt} (ticker
   * nanoseconds), or as it is without a deadline; nothing left, the admitter's expiry.
   */
  private Exchange admitted(
      Gate gate, AdmissionRequest request, long deadlineAt, ProviderCall call, byte[] sent) {
    AdmissionRequest asked = request;
    if (deadlineAt != NO_DEADLINE) {
      long left = deadlineAt - ticker.nanoTime();
      if (left <= 0) {
        throw admitter.expired(
            gate.target(), "the call's deadline passed before it could be sent; nothing was sent");
      }
      asked = request.withDeadline(Duration.ofNanos(left));
    }
    Grant grant = admitter.admit(gate, asked);
    return new Exchange(this, gate, asked, grant, call, sent, deadlineAt);
  }

  private static @Nullable Duration shortest(@Nullable Duration a, @Nullable Duration b) {
    return a == null || (b != null && b.compareTo(a) < 0) ? b : a;
  }

  /**
   * Admits the call of {@code earlier} again, after its grant was given back unused ({@link
   * Exchange#unsent()}) or released on a 429 or a stop ({@link #resends}): the same gate, caller,
   * cost and body, as a first attempt. The booking the caller presented (its request header or
   * context) was redeemed by the earlier admission, so it is not presented again; a deferral of
   * this admission carries a booking of its own. It carries what is left of the call's deadline
   * ({@link #admit(byte[], Function, Duration)}), not the deadline the first admission had; with
   * nothing left, the call is not sent and the admitter's expiry ({@link Admitter#expired}) is
   * thrown without asking the gate.
   *
   * @return the admitted exchange, whose {@link Exchange#body()} is to be sent
   * @throws RuntimeException the admitter's exception when the call must not be sent now
   */
  public Exchange again(Exchange earlier) {
    return admitted(
        earlier.gate(),
        GatedCall.fresh(earlier.request()),
        earlier.deadlineAt(),
        earlier.call(),
        earlier.body());
  }

  /**
   * Whether a call the provider refused with this answer is to ask the gate again ({@link #again})
   * and be sent again when admitted, instead of the refusal reaching the caller: the answer is a
   * 429 or says that a spend limit or a daily quota is reached ({@link
   * ProviderSignal.Meaning#STOP_UNTIL_RESET}: Anthropic's usage-limit 400, a per-day 403), the
   * feedback tells the gate ({@link ProviderFeedback#tellsTheGate()}, the default), and the call
   * was sent again fewer than {@value #MAX_RESENDS_AFTER_429} times. The gate, told of the refusal
   * by {@link Exchange#answered}, then defers the call until the provider's retry-after or refuses
   * it until the reset, so the caller meets the gate's answer, not the provider's refusal.
   *
   * @param headers the refusal's headers, names in lower case
   * @param body the refusal's body, or null when it has none
   * @param resends how many times the call was already sent again after such a refusal
   */
  public boolean resends(
      int status, Map<String, List<String>> headers, @Nullable String body, int resends) {
    return resends < MAX_RESENDS_AFTER_429
        && feedback.tellsTheGate()
        && (status == 429
            || (status >= 400
                && ProviderSignals.parse(status, headers, body, Instant.now()).meaning()
                    == ProviderSignal.Meaning.STOP_UNTIL_RESET));
  }

  /**
   * {@code exchange} when it is still in time to be sent: admitted at most its gate's {@link
   * Gate#sendWithin()} ago. Otherwise (a thread that was descheduled, a cold client slow to build
   * its request) its grant is given back unused and the call is admitted again ({@link #again},
   * without the booking its first admission redeemed), once: an adapter calls this at the last
   * point before the request leaves that it can see, and sends the exchange returned right after.
   *
   * @return {@code exchange}, or the exchange of the second admission, whose grant is the one to
   *     release
   * @throws RuntimeException the admitter's exception when the second admission does not admit the
   *     call (nothing is to be sent; the first grant was released)
   */
  public Exchange inTime(Exchange exchange) {
    if (!exchange.late()) {
      return exchange;
    }
    exchange.unsent();
    return again(exchange);
  }

  Dialect dialect() {
    return dialect;
  }

  Admitter admitter() {
    return admitter;
  }

  ProviderFeedback feedback() {
    return feedback;
  }

  CostModel costModel() {
    return costModel;
  }

  /** The time an exchange's send bound ({@link Gate#sendWithin()}) is measured in. */
  Ticker ticker() {
    return ticker;
  }

  private ObjectNode parse(byte[] requestBody) {
    JsonNode node;
    try {
      node = JSON.readTree(requestBody);
    } catch (IOException e) {
      throw admitter.refused(
          RejectReason.INVALID_REQUEST, "the request body is not JSON: " + e.getMessage());
    }
    if (!(node instanceof ObjectNode object)) {
      throw admitter.refused(
          RejectReason.INVALID_REQUEST, "the request body must be a JSON object");
    }
    return object;
  }

  private static byte[] write(ObjectNode body) {
    try {
      return JSON.writeValueAsBytes(body);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("a parsed JSON body could not be written back", e);
    }
  }

  /** Options of a {@link ClientGate}. Not thread-safe; build once. */
  public static final class Builder {
    private final Dialect dialect;
    private @Nullable ModelRoutes routes;
    private Admitter admitter = Admitter.direct();
    private CallerResolver resolver = CallerResolver.fromContext();
    private ProviderFeedback feedback = ProviderFeedback.TO_CALLS_GATE;
    private CostModel costModel = CostModel.REQUESTS_AND_TOKENS;
    private Ticker ticker = Ticker.system();
    private @Nullable Duration deadline;

    private Builder(Dialect dialect) {
      this.dialect = Objects.requireNonNull(dialect, "dialect");
    }

    /** Every call goes to {@code gate}. */
    public Builder gate(Gate gate) {
      this.routes = ModelRoutes.single(gate);
      return this;
    }

    /** Each call goes to the gate its model is routed to. */
    public Builder routes(ModelRoutes routes) {
      this.routes = Objects.requireNonNull(routes, "routes");
      return this;
    }

    /**
     * How a refusal reaches the caller: {@link Admitter#direct()} (the default) or {@link
     * ActivityAdmitter}.
     */
    public Builder admitter(Admitter admitter) {
      this.admitter = Objects.requireNonNull(admitter, "admitter");
      return this;
    }

    /** Who a call is for; by default the thread's {@link GateContext}. */
    public Builder callerResolver(CallerResolver resolver) {
      this.resolver = Objects.requireNonNull(resolver, "resolver");
      return this;
    }

    /**
     * Where every answer's status and headers go; by default {@link
     * ProviderFeedback#TO_CALLS_GATE}, the gate that admitted the call ({@link
     * ProviderFeedback#NONE} turns it off).
     */
    public Builder feedback(ProviderFeedback feedback) {
      this.feedback = Objects.requireNonNull(feedback, "feedback");
      return this;
    }

    /** The dimensions calls are charged in; requests and tokens by default. */
    public Builder costModel(CostModel costModel) {
      this.costModel = Objects.requireNonNull(costModel, "costModel");
      return this;
    }

    /**
     * The time the send bound ({@link Gate#sendWithin()}) is measured in: how long after its
     * admission a call reached {@link #inTime}. The system's by default; a test moves its own.
     */
    public Builder ticker(Ticker ticker) {
      this.ticker = Objects.requireNonNull(ticker, "ticker");
      return this;
    }

    /**
     * The deadline for the answer of every call of this client, counted from the moment the call
     * reaches the gate: set it to the time the client's callers wait for an answer (the gated
     * clients hand the SDK's request timeout over themselves). A caller's own deadline or the SDK's
     * per-request timeout, when shorter, wins ({@link ClientGate#admit(byte[], Function,
     * Duration)}). None by default.
     *
     * @param deadline in (0, 365 days]; outside it, an {@link IllegalArgumentException} naming the
     *     range
     */
    public Builder deadline(Duration deadline) {
      if (deadline == null
          || deadline.isNegative()
          || deadline.isZero()
          || deadline.compareTo(Duration.ofDays(365)) > 0) {
        throw new IllegalArgumentException("deadline must be in (0, 365 days], got " + deadline);
      }
      this.deadline = deadline;
      return this;
    }

    public ClientGate build() {
      return new ClientGate(this);
    }
  }
}
