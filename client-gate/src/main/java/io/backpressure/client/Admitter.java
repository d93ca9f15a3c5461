package io.backpressure.client;

import io.backpressure.core.AdmissionRequest;
import io.backpressure.core.Cost;
import io.backpressure.core.Gate;
import io.backpressure.core.Grant;
import io.backpressure.core.RejectReason;
import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * How a gated client turns the gate's answer into "send now" or an exception: {@link #direct()}
 * throws a {@link NotAdmittedException}; {@link #waiting(Duration)} waits for the call's turn on
 * the calling thread, up to a bound; {@link ActivityAdmitter} raises the Temporal failures of
 * {@code ActivityGate}, so a deferral frees the worker slot and waits on a durable timer.
 * Implementations are thread-safe.
 */
public interface Admitter {

  /**
   * Admits {@code request} at {@code gate}.
   *
   * @return the grant, to be released once the call is over
   * @throws RuntimeException when the call must not be sent now (deferred, expired or rejected)
   */
  Grant admit(Gate gate, AdmissionRequest request);

  /** Releases {@code grant} with what the call used. Never throws; callable from any thread. */
  void release(Gate gate, Grant grant, Cost actual);

  /**
   * The exception for a call the client refuses before asking any gate (no caller, no route), of
   * the same kind as this admitter's rejections.
   */
  RuntimeException refused(RejectReason reason, @Nullable String message);

  /**
   * The exception for a call the client does not send because its deadline has passed before the
   * gate was asked ({@link GateContext#withDeadline}), of the same kind as this admitter's
   * expiries: {@link ExpiredException} by default.
   *
   * @param target the gate's target
   * @param message why the call is not sent
   */
  default RuntimeException expired(String target, String message) {
    return new ExpiredException(target, Duration.ZERO, message);
  }

  /**
   * Whether a call this admitter defers is sent, if ever, by a later attempt of its caller that
   * makes the SDK call anew, rather than by the SDK call that asked ({@link ActivityAdmitter}: the
   * deferral ends the Temporal activity's attempt and the call runs again after a durable timer).
   * Then the SDK's timeout for the request bounds that later SDK call, not the wait for the call's
   * turn, and is not taken as the call's deadline ({@link ClientGate#admit(byte[],
   * java.util.function.Function, Duration)}); the activity's own timeouts are. False by default.
   */
  default boolean defersToALaterAttempt() {
    return false;
  }

  /**
   * Outside Temporal: throws {@link DeferredException}, {@link ExpiredException} or {@link
   * RejectedException}.
   */
  static Admitter direct() {
    return DirectAdmitter.INSTANCE;
  }

  /**
   * Outside Temporal, for synchronous callers: a deferred call waits on the calling thread (a
   * {@link Thread#sleep}, which parks a virtual thread without pinning it), keeps its booking and
   * asks again when its turn comes, for at most {@code maxWait} in all (or the call's own {@link
   * GateContext#maxWait()}, if smaller), each time with what is left of the call's deadline, if it
   * has one. When its turn would come later than that, the gate refuses it at once and {@link
   * ExpiredException} reaches the caller; {@link RejectedException} as with {@link #direct()}. An
   * interrupt during the wait ends it with the {@link DeferredException} it was waiting out
   * (booking included), the interrupt flag set.
   *
   * @param maxWait in (0, 1 h]; outside it, an {@link IllegalArgumentException} naming the range
   */
  static Admitter waiting(Duration maxWait) {
    if (maxWait == null
        || maxWait.isNegative()
        || maxWait.isZero()
        || maxWait.compareTo(Duration.ofHours(1)) > 0) {
      throw new IllegalArgumentException("maxWait must be in (0, 1h], got " + maxWait);
    }
    return new WaitingAdmitter(maxWait);
  }
}
