package io.backpressure.core;

import java.util.Objects;

/**
 * One call asking to be admitted.
 *
 * @param tenant who the call is for; entitled in proportion to its weight
 * @param priority the priority class name, one of the policy's classes
 * @param cost the estimated cost; for tokens, the input estimate (see {@code maxTokens})
 * @param maxTokens the call's completion limit, or {@code null}; in reservation mode the gate debits
 *     {@code tokens + maxTokens} (or the policy's default when null) and refunds the unused part
 * @param booking the booking of an earlier {@link Admission.Deferred} for this same call, or {@code
 *     null} on the first attempt
 */
public record AdmissionRequest(
    String tenant, String priority, Cost cost, Long maxTokens, String booking) {

  public AdmissionRequest {
    Objects.requireNonNull(cost, "cost");
  }

  /** A first attempt with no completion limit. */
  public static AdmissionRequest of(String tenant, String priority, Cost cost) {
    return new AdmissionRequest(tenant, priority, cost, null, null);
  }

  /** This request, retried under the booking an earlier deferral returned. */
  public AdmissionRequest withBooking(String booking) {
    return new AdmissionRequest(tenant, priority, cost, maxTokens, booking);
  }

  /** This request with the call's {@code max_tokens}. */
  public AdmissionRequest withMaxTokens(long maxTokens) {
    return new AdmissionRequest(tenant, priority, cost, maxTokens, booking);
  }
}
