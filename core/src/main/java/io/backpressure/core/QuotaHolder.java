package io.backpressure.core;

import io.backpressure.core.spi.LimitPlan;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Whose quota an administrator reads, sets or resets: a tenant's or a priority class's ({@link
 * Limits#tenantQuotas()}, {@link Limits#classQuotas()}).
 *
 * <p>A value, safe to share between threads.
 *
 * @param kind a tenant or a class
 * @param name the tenant's or the class's name, non-blank, at most 128 characters
 */
public record QuotaHolder(Kind kind, String name) {

  /** What holds the quota. */
  public enum Kind {
    /** One tenant: its own quota, else the policy's default tenant quota. */
    TENANT,
    /** One priority class, shared by all its tenants. */
    CLASS
  }

  public QuotaHolder {
    Objects.requireNonNull(kind, "kind");
    PolicyChecks.name(kind == Kind.TENANT ? "tenant" : "class", name);
  }

  /** Tenant {@code name}. */
  public static QuotaHolder tenant(String name) {
    return new QuotaHolder(Kind.TENANT, name);
  }

  /** Priority class {@code name}. */
  public static QuotaHolder priorityClass(String name) {
    return new QuotaHolder(Kind.CLASS, name);
  }

  /**
   * The policy field of its own quota: {@code quotas.tenants.<name>} or {@code
   * quotas.classes.<name>}.
   */
  public String field() {
    return (kind == Kind.TENANT ? "quotas.tenants." : "quotas.classes.") + name;
  }

  /** The quota that binds it under {@code policy} (a tenant's own, else the default), or null. */
  public Limits.@Nullable Quota quotaIn(Policy policy) {
    Limits limits = policy.limits();
    return kind == Kind.TENANT ? limits.tenantQuota(name) : limits.classQuotas().get(name);
  }

  /**
   * The quota that binds it under {@code policy}.
   *
   * @throws InvalidPolicyException naming {@link #field()} when it has none, or naming {@code
   *     priorities} when the policy has no such class
   */
  public Limits.Quota requireQuota(Policy policy) {
    checkIn(policy);
    Limits.Quota quota = quotaIn(policy);
    if (quota == null) {
      throw new InvalidPolicyException(
          field(),
          field()
              + " is not set (and "
              + (kind == Kind.TENANT ? "quotas.default_tenant is not either" : "applies to no one")
              + "); set one first");
    }
    return quota;
  }

  /**
   * Checks that the policy knows it: a class must be one of the policy's.
   *
   * @throws InvalidPolicyException naming {@code priorities} for an unknown class
   */
  public void checkIn(Policy policy) {
    if (kind == Kind.CLASS && policy.priorityIndex(name) < 0) {
      throw new InvalidPolicyException(
          "priorities",
          "priorities of target '"
              + policy.target()
              + "' have no class named '"
              + name
              + "'; known: "
              + String.join(", ", policy.priorityNames()));
    }
  }

  /** The state's counter of its quota per {@code period}. */
  public String counter(Limits.Period period) {
    return kind == Kind.TENANT
        ? LimitPlan.tenantField(period, name)
        : LimitPlan.classField(period, name);
  }
}
