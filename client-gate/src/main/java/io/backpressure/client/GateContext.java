package io.backpressure.client;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * Who a gated client call is for, set by the caller around the call.
 *
 * <pre>{@code
 * try (GateContext.Scope scope = GateContext.of("acme", "P1").open()) {
 *   client.chat().completions().create(params);      // admitted as tenant acme, class P1
 * }
 * }</pre>
 *
 * <p>The context is held per thread: open it on the thread that makes the SDK call (for the
 * asynchronous clients, the thread that calls the service method, which is where the SDK hands the
 * request to its HTTP client). Scopes nest; closing one restores the context that was current when
 * it was opened. Values are not checked here: the gate answers a blank tenant or an unknown class
 * with a rejection naming the field.
 *
 * @param tenant the tenant the call is for
 * @param priority the priority class, one of the gate policy's class names
 * @param booking the booking of an earlier deferral of this same call (from {@link
 *     DeferredException#booking()}), or null on a first attempt
 * @param maxWait the longest the caller will wait for the call's turn, or null for the class's
 *     default
 */
public record GateContext(String tenant, String priority, String booking, Duration maxWait) {

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
