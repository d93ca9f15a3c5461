package io.backpressure.core;

import java.time.Duration;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * One call asking to be admitted.
 *
 * <p>A value, safe to read from any thread.
 *
 * @param tenant who the call is for; entitled in proportion to its weight
 * @param priority the priority class name, one of the policy's classes
 * @param cost the estimated cost; for tokens, the input estimate (see {@code maxTokens})
 * @param maxTokens the call's completion limit, or {@code null}; in reservation mode the gate
 *     debits {@code tokens + maxTokens} (or the policy's default when null) and refunds the unused
 *     part
 * @param booking the booking of an earlier {@link Admission.Deferred} for this same call, or {@code
 *     null} on the first attempt
 * @param maxWait how much longer, counted from this attempt, the caller is willing to wait for the
 *     call's turn, or {@code null} for the class's default ({@code max_wait} in the policy, or no
 *     limit); a call whose turn would come later is answered {@link Admission.Expired} at once
 */
public record AdmissionRequest(
    @Nullable String tenant,
    @Nullable String priority,
    Cost cost,
    @Nullable Long maxTokens,
    @Nullable String booking,
    @Nullable Duration maxWait) {

  public AdmissionRequest {
    Objects.requireNonNull(cost, "cost");
  }

  /** A first attempt with no completion limit and the class's default wait limit. */
  public static AdmissionRequest of(String tenant, String priority, Cost cost) {
    return new AdmissionRequest(tenant, priority, cost, null, null, null);
  }

  /** This request, retried under the booking an earlier deferral returned. */
  public AdmissionRequest withBooking(String booking) {
    return new AdmissionRequest(tenant, priority, cost, maxTokens, booking, maxWait);
  }

  /** This request with the call's {@code max_tokens}. */
  public AdmissionRequest withMaxTokens(long maxTokens) {
    return new AdmissionRequest(tenant, priority, cost, maxTokens, booking, maxWait);
  }

  /**
   * This request with a deadline: the caller waits at most {@code maxWait} more, counted from this
   * attempt, for the call's turn. Retries pass what is left of the caller's budget.
   */
  public AdmissionRequest withMaxWait(Duration maxWait) {
    return new AdmissionRequest(tenant, priority, cost, maxTokens, booking, maxWait);
  }
}
