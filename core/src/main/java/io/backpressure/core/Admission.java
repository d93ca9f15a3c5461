package io.backpressure.core;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The gate's answer to one admission request: exactly one of {@link Admitted}, {@link Deferred},
 * {@link Expired} or {@link Rejected}. Callers switch on it exhaustively:
 *
 * <pre>{@code
 * switch (gate.admit(request)) {
 *   case Admission.Admitted a -> call(a.grant());
 *   case Admission.Deferred d -> sleepDurably(d.retryAfter(), d.booking());
 *   case Admission.Expired e -> giveUp(e.turnIn());
 *   case Admission.Rejected r -> fail(r.message());
 * }
 * }</pre>
 *
 * <p>Every answer is a value, safe to hand from thread to thread.
 */
public sealed interface Admission
    permits Admission.Admitted, Admission.Deferred, Admission.Expired, Admission.Rejected {

  /**
   * The call may go ahead now. Its cost has been debited; hand the grant to {@link
   * Gate#release(Grant, Cost)} with the true usage once the reply is in.
   */
  record Admitted(Grant grant) implements Admission {
    public Admitted {
      Objects.requireNonNull(grant, "grant");
    }
  }

  /**
   * Not now. Free the worker slot, wait {@code retryAfter} on a durable timer, then ask again with
   * {@link AdmissionRequest#withBooking(String) the booking}: the gate has already placed this call
   * in its queue's order, so the retry redeems that place instead of queueing anew.
   *
   * @param retryAfter the earliest time at which this call could be admitted if nothing else
   *     arrived; never negative
   * @param booking opaque token to present on the retry
   */
  record Deferred(Duration retryAfter, String booking) implements Admission {
    public Deferred {
      Objects.requireNonNull(retryAfter, "retryAfter");
      Objects.requireNonNull(booking, "booking");
      if (retryAfter.isNegative()) {
        throw new IllegalArgumentException("retryAfter must not be negative: " + retryAfter);
      }
    }
  }

  /**
   * Too late: the call's turn would come after the caller's deadline ({@link
   * AdmissionRequest#maxWait()} or the class's {@code max_wait}). Terminal: nothing was debited and
   * the call's place in line was given back, so waiting and then failing costs no one anything.
   *
   * @param turnIn how long from now the call's turn would have come; never negative
   * @param message what the deadline was and why it cannot be met
   */
  record Expired(Duration turnIn, String message) implements Admission {
    public Expired {
      Objects.requireNonNull(turnIn, "turnIn");
      Objects.requireNonNull(message, "message");
      if (turnIn.isNegative()) {
        throw new IllegalArgumentException("turnIn must not be negative: " + turnIn);
      }
    }

    /**
     * The answer for a call whose turn comes in {@code turnIn}, past the caller's {@code maxWait}.
     */
    public static Expired of(Duration turnIn, Duration maxWait) {
      return new Expired(
          turnIn,
          "the call's turn comes in "
              + turnIn.toMillis()
              + " ms, after its deadline of "
              + maxWait.toMillis()
              + " ms");
    }
  }

  /**
   * Not this call: asking again with the same request gives the same answer, at least until {@code
   * resetAt}. {@code message} names the field at fault and the allowed range, or the limit reached.
   *
   * <p>Most reasons are permanent ({@code resetAt} null). A calendar limit or a quota that the call
   * cannot fit into before its window resets ({@link RejectReason#LIMIT_REACHED}, {@link
   * RejectReason#QUOTA_EXHAUSTED}) is terminal for now and carries the instant the window resets: a
   * caller shows it to its user, or, if it chose to, waits until then; it is never deferred for
   * hours.
   *
   * @param reason why
   * @param message what was wrong or which limit was reached, for people
   * @param resetAt when the limit that refused the call resets, or null when waiting would not help
   */
  record Rejected(RejectReason reason, String message, @Nullable Instant resetAt)
      implements Admission {
    public Rejected {
      Objects.requireNonNull(reason, "reason");
      Objects.requireNonNull(message, "message");
    }

    /** A rejection that no wait undoes. */
    public Rejected(RejectReason reason, String message) {
      this(reason, message, null);
    }
  }
}
