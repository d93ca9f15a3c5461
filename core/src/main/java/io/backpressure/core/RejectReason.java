package io.backpressure.core;

/** Why a request was {@linkplain Admission.Rejected rejected}. Every reason is terminal. */
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
  STATE_UNAVAILABLE
}
