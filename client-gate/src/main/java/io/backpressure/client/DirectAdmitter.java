package io.backpressure.client;

import io.backpressure.core.Admission;
import io.backpressure.core.AdmissionRequest;
import io.backpressure.core.Cost;
import io.backpressure.core.Gate;
import io.backpressure.core.Grant;
import io.backpressure.core.RejectReason;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** {@link Admitter#direct()}: the gate's answer as an exception. Stateless. */
final class DirectAdmitter implements Admitter {

  static final DirectAdmitter INSTANCE = new DirectAdmitter();

  private static final Logger log = LoggerFactory.getLogger(DirectAdmitter.class);

  private DirectAdmitter() {}

  @Override
  public Grant admit(Gate gate, AdmissionRequest request) {
    Admission admission = gate.admit(request);
    if (admission instanceof Admission.Admitted admitted) {
      return admitted.grant();
    }
    if (admission instanceof Admission.Deferred deferred) {
      throw new DeferredException(gate.target(), deferred.retryAfter(), deferred.booking());
    }
    if (admission instanceof Admission.Expired expired) {
      throw new ExpiredException(gate.target(), expired.turnIn(), expired.message());
    }
    Admission.Rejected rejected = (Admission.Rejected) admission;
    throw new RejectedException(
        gate.target(), rejected.reason(), rejected.message(), rejected.resetAt());
  }

  /** As {@code ActivityGate} releases: a usage the gate refuses is replaced by the debited cost. */
  @Override
  public void release(Gate gate, Grant grant, Cost actual) {
    try {
      gate.release(grant, actual);
    } catch (RuntimeException refused) {
      log.warn(
          "release of grant {} with the reported usage failed; releasing the estimate",
          grant.id(),
          refused);
      try {
        gate.release(grant, grant.debited());
      } catch (RuntimeException e) {
        log.warn("release of grant {} failed", grant.id(), e);
      }
    }
  }

  @Override
  public RuntimeException refused(RejectReason reason, @Nullable String message) {
    return new RejectedException(null, reason, message);
  }
}
