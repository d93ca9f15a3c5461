package io.backpressure.core;

import java.util.List;

/**
 * The administration of a target's tenant and class quotas ({@link Limits}): read one's use and
 * reset instant, set one, reset one, each change written to the target's audit trail. {@link
 * InMemoryGate} administers its own state; the Redis backend's policy store administers the state
 * every worker shares. Every change is validated before anything is written: bad input throws
 * {@link InvalidPolicyException} naming the field and changes nothing, and writes no audit entry.
 *
 * <p>Implementations are thread-safe.
 */
public interface QuotaAdmin {

  /**
   * How much of {@code holder}'s quota its current window holds, now.
   *
   * @throws InvalidPolicyException naming the quota's field when {@code holder} has no quota, or
   *     {@code priorities} for a class the policy does not have
   */
  QuotaUse quotaUse(QuotaHolder holder);

  /**
   * Sets {@code holder}'s own quota (for a tenant, its own rather than the default tenant quota),
   * in force from the next admission, and audits the change. What the current window holds is kept;
   * a quota of another period counts from zero in its own window.
   *
   * @param actor who makes the change, non-blank, at most 128 characters
   * @return the audit entry of the change (before: the holder's own quota, or {@code none})
   * @throws InvalidPolicyException naming the field at fault: {@code actor}, {@code priorities} for
   *     an unknown class, the quota's field for a quota in currency without a price or in tokens
   *     without a tokens dimension
   */
  AuditEntry setQuota(QuotaHolder holder, Limits.Quota quota, String actor);

  /**
   * Resets {@code holder}'s quota for its current window: the window holds nothing from now on, so
   * the holder may spend its whole quota again before the reset instant. Calls in flight still
   * reconcile on release what they used beyond their cost (never taking the count below zero).
   * Audits the change.
   *
   * @param actor who makes the change, non-blank, at most 128 characters
   * @return the audit entry of the change (before: what the window held)
   * @throws InvalidPolicyException naming the field at fault: {@code actor}, the quota's field for
   *     a holder without a quota, {@code priorities} for an unknown class
   */
  AuditEntry resetQuota(QuotaHolder holder, String actor);

  /** The target's audit trail, oldest first: at least the last 1 000 changes. */
  List<AuditEntry> auditTrail();
}
