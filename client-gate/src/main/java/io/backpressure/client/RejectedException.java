package io.backpressure.client;

import io.backpressure.core.RejectReason;
import org.jspecify.annotations.Nullable;

/**
 * Never: the same call will be refused again (a bad tenant or class, a cost that can never fit, a
 * model with no route, no caller). The message names the field and the allowed range.
 */
public final class RejectedException extends NotAdmittedException {

  private final RejectReason reason;

  public RejectedException(@Nullable String target, RejectReason reason, @Nullable String message) {
    super(target, "admission rejected (" + reason + "): " + message);
    this.reason = reason;
  }

  public RejectReason reason() {
    return reason;
  }
}
