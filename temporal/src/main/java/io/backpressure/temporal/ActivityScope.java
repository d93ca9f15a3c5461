package io.backpressure.temporal;

import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * What the workflow side told this activity execution through its headers, visible to {@link
 * ActivityGate} on the activity's thread while the execution runs.
 *
 * @param workflowTimed true when the workflow sleeps on deferrals itself (helper or transparent
 *     interceptor), so a deferral must end the activity with a non-retryable failure
 * @param booking the booking of the previous deferral of this call, or {@code null}
 * @param callEndMillis when the whole call times out, as its first run read it ({@link
 *     CallDeadline}), in ms since the epoch; {@code null} on the first run or when the workflow
 *     carried none
 */
record ActivityScope(
    boolean workflowTimed, @Nullable String booking, @Nullable Long callEndMillis) {

  private static final ThreadLocal<ActivityScope> CURRENT = new ThreadLocal<>();

  /** The scope of the activity running on this thread, or {@code null} when none was set. */
  static @Nullable ActivityScope current() {
    return CURRENT.get();
  }

  /**
   * Runs {@code body} with {@code scope} current on this thread; a null scope runs it unchanged.
   */
  static <T> T with(@Nullable ActivityScope scope, Supplier<T> body) {
    if (scope == null) {
      return body.get();
    }
    ActivityScope previous = CURRENT.get();
    CURRENT.set(scope);
    try {
      return body.get();
    } finally {
      if (previous == null) {
        CURRENT.remove();
      } else {
        CURRENT.set(previous);
      }
    }
  }
}
