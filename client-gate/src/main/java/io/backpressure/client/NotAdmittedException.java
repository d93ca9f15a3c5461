package io.backpressure.client;

import org.jspecify.annotations.Nullable;

/**
 * A gated call that was not sent because the gate did not admit it, outside Temporal (inside an
 * activity, {@link ActivityAdmitter} raises Temporal's own failures instead). Nothing reached the
 * provider and nothing stays debited.
 */
public abstract sealed class NotAdmittedException extends RuntimeException
    permits DeferredException, ExpiredException, RejectedException {

  private final @Nullable String target;

  NotAdmittedException(@Nullable String target, String message) {
    super(message);
    this.target = target;
  }

  /** The gate's target, or null when the call was refused before a gate was chosen. */
  public @Nullable String target() {
    return target;
  }
}
