package io.backpressure.core;

import java.util.Objects;

/**
 * The ticket of an admitted call: what was debited, to be reconciled by {@link Gate#release(Grant,
 * Cost)}.
 *
 * <p>A value, safe to read from any thread.
 *
 * @param id unique per admission; releasing the same id twice changes nothing the second time
 * @param tenant the tenant that was admitted
 * @param priority the priority class it was admitted in
 * @param debited the cost that was debited (in reservation mode this includes {@code max_tokens})
 * @param failedOpen true when the shared state was unavailable and the call was let through
 *     ungated; releasing such a grant does nothing
 */
public record Grant(String id, String tenant, String priority, Cost debited, boolean failedOpen) {
  public Grant {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(tenant, "tenant");
    Objects.requireNonNull(priority, "priority");
    Objects.requireNonNull(debited, "debited");
  }
}
