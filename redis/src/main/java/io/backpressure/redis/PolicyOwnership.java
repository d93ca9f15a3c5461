package io.backpressure.redis;

/**
 * What a gate does with the policy it is configured with when it connects, given what the target
 * already has in Redis. The stored policy is the one every worker of the target gates by (and the
 * one {@code admin} changes), so a worker's configured policy is only a proposal unless it says
 * otherwise.
 */
public enum PolicyOwnership {
  /**
   * Write the configured policy only if the target has none; otherwise gate by the stored one, with
   * a WARN naming the fields where the two differ. For workers that share a target whose policy an
   * operator owns (hot updates with {@code admin} survive a worker's restart).
   */
  CREATE_IF_ABSENT,
  /** Write the configured policy whatever is stored (it replaces the stored one atomically). */
  REPLACE,
  /**
   * Require the stored policy to equal the configured one: connecting fails, naming the differing
   * fields, when it differs; the configured policy is written when the target has none.
   */
  VERIFY
}
