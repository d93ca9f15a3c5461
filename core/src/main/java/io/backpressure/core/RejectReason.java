package io.backpressure.core;

/**
 * Why a request was {@linkplain Admission.Rejected rejected}. Every reason is terminal: the same
 * request gets the same answer, for the limits until their reset instant.
 */
public enum RejectReason {
  /**
   * The cost exceeds a bucket's capacity (the dimension's burst), so no wait would ever admit it.
   */
  NEVER_FITS,
  /** The priority class is not one of the policy's classes. */
  UNKNOWN_PRIORITY,
  /**
   * A field of the request is malformed: empty tenant, a cost naming an unknown dimension, bad
   * maxTokens.
   */
  INVALID_REQUEST,
  /** The shared state is unreachable and the gate is configured to fail closed with rejection. */
  STATE_UNAVAILABLE,
  /**
   * A calendar limit of the target (requests or tokens per day or month) has no room for the call
   * before its window resets, or the provider said the target's quota is spent (a per-day quota, a
   * spend limit) until a reset; {@link Admission.Rejected#resetAt()} says when it does.
   */
  LIMIT_REACHED,
  /**
   * The tenant's or the class's quota (tokens or money per day or month) has no room for the call
   * before it renews; {@link Admission.Rejected#resetAt()} says when it does.
   */
  QUOTA_EXHAUSTED
}
