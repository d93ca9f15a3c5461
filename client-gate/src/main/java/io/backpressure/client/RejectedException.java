package io.backpressure.client;

import io.backpressure.core.RejectReason;
import java.time.Instant;
import org.jspecify.annotations.Nullable;

/**
 * Not this call: the same call will be refused again (a bad tenant or class, a cost that can never
 * fit, a model with no route, no caller), or, for a calendar limit or a quota, refused until {@link
 * #resetAt()}. The message names the field and the allowed range, or the limit reached.
 */
public final class RejectedException extends NotAdmittedException {

  private final RejectReason reason;
  private final @Nullable Instant resetAt;

  /** A rejection that no wait undoes. */
  public RejectedException(@Nullable String target, RejectReason reason, @Nullable String message) {
    this(target, reason, message, null);
  }

  /** A rejection that holds until {@code resetAt} (null: for good). */
  public RejectedException(
      @Nullable String target,
      RejectReason reason,
      @Nullable String message,
      @Nullable Instant resetAt) {
    super(
        target,
        "admission rejected ("
            + reason
            + "): "
            + message
            + (resetAt == null ? "" : "; resets at " + resetAt));
    this.reason = reason;
    this.resetAt = resetAt;
  }

  public RejectReason reason() {
    return reason;
  }

  /**
   * When the limit that refused the call resets ({@link RejectReason#LIMIT_REACHED}, {@link
   * RejectReason#QUOTA_EXHAUSTED}), or null when waiting would not help.
   */
  public @Nullable Instant resetAt() {
    return resetAt;
  }
}
