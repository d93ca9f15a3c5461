package io.backpressure.integration;

import io.backpressure.core.RejectReason;

/**
 * Never: the gate cannot admit this call as it stands (an unknown class, a cost larger than a cap,
 * no tenant). The message names the field and the allowed range.
 */
public final class AdmissionRejectedException extends AdmissionException {
  private static final long serialVersionUID = 1L;
  private final RejectReason reason;

  public AdmissionRejectedException(RejectReason reason, String message) {
    super("admission rejected (" + reason + "): " + message);
    this.reason = reason;
  }

  /** Why the call can never be admitted. */
  public RejectReason reason() {
    return reason;
  }

  /** The rejection of a call that reached the gate with no {@link GateContext} at all. */
  public static AdmissionRejectedException missingContext() {
    return new AdmissionRejectedException(RejectReason.INVALID_REQUEST,
        "the call carries no GateContext: scope one with GateContext.of(tenant, priority).call(...), "
            + "pass it as the per-call attribute '" + GateContext.KEY + "', or configure a default");
  }
}
