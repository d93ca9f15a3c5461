package io.backpressure.client;

import io.backpressure.core.AdmissionRequest;
import io.backpressure.core.Cost;
import io.backpressure.core.Gate;
import io.backpressure.core.Grant;
import io.backpressure.core.RejectReason;
import org.jspecify.annotations.Nullable;

/**
 * How a gated client turns the gate's answer into "send now" or an exception: {@link #direct()}
 * throws a {@link NotAdmittedException}; {@link ActivityAdmitter} raises the Temporal failures of
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
   * Outside Temporal: throws {@link DeferredException}, {@link ExpiredException} or {@link
   * RejectedException}.
   */
  static Admitter direct() {
    return DirectAdmitter.INSTANCE;
  }
}
