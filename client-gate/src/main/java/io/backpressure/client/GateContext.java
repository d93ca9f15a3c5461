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
 */
public record GateContext(
    String tenant,
    @Nullable String priority,
    @Nullable String booking,
    @Nullable Duration maxWait) {

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

  /** Every header the gated clients read and remove before sending. */
  public static final Set<String> HEADERS =
      Set.of(TENANT_HEADER, PRIORITY_HEADER, BOOKING_HEADER, MAX_WAIT_HEADER);

  private static final ThreadLocal<GateContext> CURRENT = new ThreadLocal<>();

  /** A first attempt for {@code tenant} in class {@code priority}. */
  public static GateContext of(String tenant, String priority) {
    return new GateContext(tenant, priority, null, null);
  }

  /** This context, for the retry of a call deferred with {@code booking}. */
  public GateContext withBooking(String booking) {
    return new GateContext(tenant, priority, booking, maxWait);
  }

  /** This context with a wait limit, counted from each admission attempt. */
  public GateContext withMaxWait(Duration maxWait) {
    return new GateContext(tenant, priority, booking, maxWait);
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
    return headers;
  }

  /**
   * The context a request's headers carry, or null when they name no tenant.
   *
   * @param header the first value of a request header by name, or null when absent
   * @throws IllegalArgumentException naming the header when the wait limit is not a number of
   *     milliseconds in [0, 365 days]
   */
  public static @Nullable GateContext fromHeaders(Function<String, @Nullable String> header) {
    String tenant = header.apply(TENANT_HEADER);
    if (tenant == null) {
      return null;
    }
    String maxWait = header.apply(MAX_WAIT_HEADER);
    Duration wait = null;
    if (maxWait != null) {
      long millis;
      try {
        millis = Long.parseLong(maxWait.strip());
      } catch (NumberFormatException e) {
        millis = -1;
      }
      if (millis < 0 || millis > Duration.ofDays(365).toMillis()) {
        throw new IllegalArgumentException(
            MAX_WAIT_HEADER
                + " must be whole milliseconds in [0, 31536000000], got '"
                + maxWait
                + "'");
      }
      wait = Duration.ofMillis(millis);
    }
    return new GateContext(
        tenant, header.apply(PRIORITY_HEADER), header.apply(BOOKING_HEADER), wait);
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
