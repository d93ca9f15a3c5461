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
 * @param deadline how much longer, counted from this attempt, the caller waits for the call's
 *     <em>answer</em> (its turn, its sending and the provider's reply), or {@code null} when it
 *     gave none. It bounds {@code maxWait}, and under an {@linkplain Limits.Adaptive adaptive
 *     concurrency limit} the gate keeps back the latency it has measured at the target: a call
 *     whose deadline is shorter than that latency is not sent but answered {@link
 *     Admission.Expired} at once (but for one probe at a time, {@link Limits.Adaptive}), and one
 *     held for a lease waits for it only while the rest of its deadline still covers that latency
 */
public record AdmissionRequest(
    @Nullable String tenant,
    @Nullable String priority,
    Cost cost,
    @Nullable Long maxTokens,
    @Nullable String booking,
    @Nullable Duration maxWait,
    @Nullable Duration deadline) {

  public AdmissionRequest {
    Objects.requireNonNull(cost, "cost");
  }

  /** A request without a deadline for the answer. */
  public AdmissionRequest(
      @Nullable String tenant,
      @Nullable String priority,
      Cost cost,
      @Nullable Long maxTokens,
      @Nullable String booking,
      @Nullable Duration maxWait) {
    this(tenant, priority, cost, maxTokens, booking, maxWait, null);
  }

  /** A first attempt with no completion limit and the class's default wait limit. */
  public static AdmissionRequest of(String tenant, String priority, Cost cost) {
    return new AdmissionRequest(tenant, priority, cost, null, null, null, null);
  }

  /** This request, retried under the booking an earlier deferral returned. */
  public AdmissionRequest withBooking(String booking) {
    return new AdmissionRequest(tenant, priority, cost, maxTokens, booking, maxWait, deadline);
  }

  /** This request with the call's {@code max_tokens}. */
  public AdmissionRequest withMaxTokens(long maxTokens) {
    return new AdmissionRequest(tenant, priority, cost, maxTokens, booking, maxWait, deadline);
  }

  /**
   * This request with a deadline: the caller waits at most {@code maxWait} more, counted from this
   * attempt, for the call's turn. Retries pass what is left of the caller's budget.
   */
  public AdmissionRequest withMaxWait(Duration maxWait) {
    return new AdmissionRequest(tenant, priority, cost, maxTokens, booking, maxWait, deadline);
  }

  /**
   * This request with a deadline for the answer: the caller waits at most {@code deadline} more,
   * counted from this attempt, for the call to be answered. Retries pass what is left of it.
   */
  public AdmissionRequest withDeadline(Duration deadline) {
    return new AdmissionRequest(tenant, priority, cost, maxTokens, booking, maxWait, deadline);
  }
}
