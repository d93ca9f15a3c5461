package io.backpressure.client;

import java.time.Duration;

/** Too late: the call's turn would come after the caller's wait limit. Terminal. */
public final class ExpiredException extends NotAdmittedException {

  private final Duration turnIn;

  public ExpiredException(String target, Duration turnIn, String message) {
    super(target, "admission expired at " + target + ": " + message);
    this.turnIn = turnIn;
  }

  /** How long from now the call's turn would have come. */
  public Duration turnIn() {
    return turnIn;
  }
}
