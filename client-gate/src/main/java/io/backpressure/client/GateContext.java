package io.backpressure.client;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * Who a gated client call is for, set by the caller around the call.
 *
 * <pre>{@code
 * try (GateContext.Scope scope = GateContext.of("acme", "P1").open()) {
 *   client.chat().completions().create(params);      // admitted as tenant acme, class P1
 * }
 * }</pre>
 *
 * <p>The context is held per thread: open it on the thread that makes a blocking SDK call. The
 * asynchronous clients hand the request to their HTTP client on another thread, where the context
 * is not seen; give them the caller as request headers instead, which work on any thread and are
 * removed before the request leaves:
 *
 * <pre>{@code
 * OpenAIClient acme =
 *     client.withOptions(o -> GateContext.of("acme", "P1").headers().forEach(o::putHeader));
 * acme.async().chat().completions().create(params);
 * }</pre>
 *
 * <p>A caller in the headers wins over the thread's context. Scopes nest; closing one restores the
 * context that was current when it was opened. {@link #call} and {@link #run} scope a context
 * around one action:
 *
 * <pre>{@code
 * String answer = GateContext.of("acme", "P1").call(() -> assistant.chat("Hello"));
 * }</pre>
 *
 * <p>Frameworks that carry per-call attributes (Spring AI's advisor parameters, LangChain4j's
 * {@code ChatRequestOptions} listener attributes) take the context from there, under {@link #KEY}.
 * Values are not checked here: the gate answers a blank tenant or an unknown class with a rejection
 * naming the field.
 *
 * @param tenant the tenant the call is for
 * @param priority the priority class, one of the gate policy's class names
 * @param booking the booking of an earlier deferral of this same call (from {@link
 *     DeferredException#booking()}), or null on a first attempt
 * @param maxWait the longest the caller will wait for the call's turn, or null for the class's
 *     default
 * @param deadline how much longer, counted from the call's admission, the caller waits for the
 *     call's answer (its turn, its sending and the provider's reply), or null when it gives none;
 *     see {@link #withDeadline}
 */
public record GateContext(
    String tenant,
    @Nullable String priority,
    @Nullable String booking,
    @Nullable Duration maxWait,
    @Nullable Duration deadline) {

  /** The key under which frameworks' per-call attribute maps carry a context. */
  public static final String KEY = "backpressure.context";

  /** Request header naming the tenant. */
  public static final String TENANT_HEADER = "x-backpressure-tenant";

  /** Request header naming the priority class. */
  public static final String PRIORITY_HEADER = "x-backpressure-priority";

  /** Request header carrying the booking of an earlier deferral. */
  public static final String BOOKING_HEADER = "x-backpressure-booking";

  /** Request header carrying the wait limit, in whole milliseconds. */
  public static final String MAX_WAIT_HEADER = "x-backpressure-max-wait-ms";

  /** Request header carrying the deadline for the answer, in whole milliseconds. */
  public static final String DEADLINE_HEADER = "x-backpressure-deadline-ms";

  /** Every header the gated clients read and remove before sending. */
  public static final Set<String> HEADERS =
      Set.of(TENANT_HEADER, PRIORITY_HEADER, BOOKING_HEADER, MAX_WAIT_HEADER, DEADLINE_HEADER);

  private static final ThreadLocal<GateContext> CURRENT = new ThreadLocal<>();

  /** A first attempt for {@code tenant} in class {@code priority}. */
  public static GateContext of(String tenant, String priority) {
    return new GateContext(tenant, priority, null, null, null);
  }

  /** This context, for the retry of a call deferred with {@code booking}. */
  public GateContext withBooking(String booking) {
    return new GateContext(tenant, priority, booking, maxWait, deadline);
  }

  /** This context with a wait limit, counted from each admission attempt. */
  public GateContext withMaxWait(Duration maxWait) {
    return new GateContext(tenant, priority, booking, maxWait, deadline);
  }

  /**
   * This context with a deadline for the answer: the caller gives up on the call {@code deadline}
   * after it asks for it. The gate is asked with it ({@code AdmissionRequest.withDeadline}), so a
   * call whose turn would come after it, or, under an adaptive concurrency limit, whose deadline
   * does not cover the latency the gate measured at the target, ends with {@link ExpiredException}
   * at once instead of being sent to time out; every later admission of the call (after a 429, or
   * when it was not sent in time) carries what is left of it, and a call with nothing left is not
   * sent. When a gated client also has a deadline of its own (its SDK's request timeout, {@code
   * GatedClientBuilder.deadline}), the shortest applies.
   *
   * @param deadline zero or positive; the gate refuses a negative one naming the field
   */
  public GateContext withDeadline(Duration deadline) {
    return new GateContext(tenant, priority, booking, maxWait, deadline);
  }

  /** This context as request headers (names in lower case), for a client's {@code putHeader}. */
  public Map<String, String> headers() {
    Map<String, String> headers = new LinkedHashMap<>();
    headers.put(TENANT_HEADER, tenant);
    headers.put(PRIORITY_HEADER, priority);
    if (booking != null) {
      headers.put(BOOKING_HEADER, booking);
    }
    if (maxWait != null) {
      headers.put(MAX_WAIT_HEADER, Long.toString(maxWait.toMillis()));
    }
    if (deadline != null) {
      headers.put(DEADLINE_HEADER, Long.toString(deadline.toMillis()));
    }
    return headers;
  }

  /**
   * The context a request's headers carry, or null when they name no tenant.
   *
   * @param header the first value of a request header by name, or null when absent
   * @throws IllegalArgumentException naming the header when the wait limit or the deadline is not a
   *     number of milliseconds in [0, 365 days]
   */
  public static @Nullable GateContext fromHeaders(Function<String, @Nullable String> header) {
    String tenant = header.apply(TENANT_HEADER);
    if (tenant == null) {
      return null;
    }
    return new GateContext(
        tenant,
        header.apply(PRIORITY_HEADER),
        header.apply(BOOKING_HEADER),
        millis(header, MAX_WAIT_HEADER),
        millis(header, DEADLINE_HEADER));
  }

  /**
   * The duration a header carries in whole milliseconds, or null when it is absent.
   *
   * @throws IllegalArgumentException naming the header when it is not in [0, 365 days]
   */
  static @Nullable Duration millis(Function<String, @Nullable String> header, String name) {
    String value = header.apply(name);
    if (value == null) {
      return null;
    }
    long millis;
    try {
      millis = Long.parseLong(value.strip());
    } catch (NumberFormatException e) {
      millis = -1;
    }
    if (millis < 0 || millis > Duration.ofDays(365).toMillis()) {
      throw new IllegalArgumentException(
          name + " must be whole milliseconds in [0, 31536000000], got '" + value + "'");
    }
    return Duration.ofMillis(millis);
  }

  /** The context the current thread has opened, if any. */
  public static Optional<GateContext> current() {
    return Optional.ofNullable(CURRENT.get());
  }

  /** Makes this the current thread's context until the returned scope is closed. */
  public Scope open() {
    Scope scope = new Scope(CURRENT.get());
    CURRENT.set(this);
    return scope;
  }

  /**
   * Runs {@code action} with this context current on this thread, then restores the previous one.
   */
  public void run(Runnable action) {
    try (Scope scope = open()) {
      action.run();
    }
  }

  /**
   * Calls {@code action} with this context current on this thread, then restores the previous one.
   */
  public <T> T call(Callable<T> action) throws Exception {
    try (Scope scope = open()) {
      return action.call();
    }
  }

  /** An open context; close it on the thread that opened it. */
  public static final class Scope implements AutoCloseable {
    private final GateContext previous;

    private Scope(GateContext previous) {
      this.previous = previous;
    }

    /** Restores the context that was current before this scope opened. */
    @Override
    public void close() {
      if (previous == null) {
        CURRENT.remove();
      } else {
        CURRENT.set(Objects.requireNonNull(previous));
      }
    }
  }
}
