package io.backpressure.integration;

import java.time.Duration;

/** Too late: the call's turn would come after its wait limit. Terminal; nothing was debited. */
public final class AdmissionExpiredException extends AdmissionException {
  private static final long serialVersionUID = 1L;
  private final Duration turnIn;

  public AdmissionExpiredException(Duration turnIn, String message) {
    super(message);
    this.turnIn = turnIn;
  }

  /** How long from now the call's turn would have come. */
  public Duration turnIn() {
    return turnIn;
  }
}
