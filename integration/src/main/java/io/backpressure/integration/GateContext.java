package io.backpressure.integration;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.Callable;

/**
 * Whose call this is and how urgent: the tenant and priority class the gate admits a framework call
 * under, with an optional wait limit and the booking of an earlier deferral.
 *
 * <p>Frameworks that carry per-call attributes take it from there (Spring AI's advisor context,
 * LangChain4j's {@code ChatRequestOptions} listener attributes). Everywhere else, scope it around
 * the call on the calling thread:
 *
 * <pre>{@code
 * String answer = GateContext.of("acme", "P1").call(() -> assistant.chat("Hello"));
 * }</pre>
 *
 * <p>Values are not checked here: the gate answers a blank tenant or an unknown class with a
 * rejection naming the field. The thread scope is a plain (not inheritable) {@link ThreadLocal}:
 * work handed to another thread does not see it, so read it on the calling thread (the decorators
 * do).
 *
 * @param tenant the tenant the call is for
 * @param priority the priority class, one of the policy's class names (for example {@code P1})
 * @param maxWait how much longer the caller is willing to wait for the call's turn, or {@code null}
 *     for the class's default
 * @param booking the booking of an earlier {@link AdmissionDeferredException} for this same call, or
 *     {@code null} on the first attempt
 */
public record GateContext(String tenant, String priority, Duration maxWait, String booking) {

  /** The attribute key under which frameworks' per-call attribute maps carry a context. */
  public static final String KEY = "backpressure.context";

  private static final ThreadLocal<GateContext> CURRENT = new ThreadLocal<>();

  /** A first attempt for {@code tenant} in class {@code priority}, with the class's wait limit. */
  public static GateContext of(String tenant, String priority) {
    return new GateContext(tenant, priority, null, null);
  }

  /** The context scoped on this thread by {@link #run} or {@link #call}, or {@code null}. */
  public static GateContext current() {
    return CURRENT.get();
  }

  /** This context with a wait limit, counted from each attempt. */
  public GateContext withMaxWait(Duration maxWait) {
    return new GateContext(tenant, priority, Objects.requireNonNull(maxWait, "maxWait"), booking);
  }

  /** This context retrying under the booking an earlier deferral carried. */
  public GateContext withBooking(String booking) {
    return new GateContext(tenant, priority, maxWait, Objects.requireNonNull(booking, "booking"));
  }

  /** Runs {@code action} with this context current on this thread, then restores the previous one. */
  public void run(Runnable action) {
    GateContext previous = CURRENT.get();
    CURRENT.set(this);
    try {
      action.run();
    } finally {
      restore(previous);
    }
  }

  /** Calls {@code action} with this context current on this thread, then restores the previous one. */
  public <T> T call(Callable<T> action) throws Exception {
    GateContext previous = CURRENT.get();
    CURRENT.set(this);
    try {
      return action.call();
    } finally {
      restore(previous);
    }
  }

  private static void restore(GateContext previous) {
    if (previous == null) {
      CURRENT.remove();
    } else {
      CURRENT.set(previous);
    }
  }
}
