package io.backpressure.admin;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.backpressure.core.AuditEntry;
import io.backpressure.core.Limits;
import io.backpressure.core.Policy;
import io.backpressure.core.PriorityClass;
import io.backpressure.core.QuotaHolder;
import io.backpressure.core.QuotaUse;
import io.backpressure.redis.RedisPolicyStore;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;

/**
 * What {@code admin show} prints of a target's limits: the calls in flight under its concurrency
 * limit (at the target, per class, per tenant with a limit of its own), an adaptive limit's current
 * value and the latency it measured last, and each class's and named tenant's quota with its use,
 * what is left and when it resets. The default tenant quota is shown as configured: its use is each
 * tenant's own ({@code admin quota show --tenant T}).
 */
final class LimitsView {
  private LimitsView() {}

  /** The limits as read now from {@code store}; null when the policy has none. */
  static @Nullable Read read(Policy policy, RedisPolicyStore store) {
    Limits limits = policy.limits();
    if (!limits.any()) {
      return null;
    }
    Limits.Concurrency concurrency = limits.concurrency();
    Map<QuotaHolder, Long> inFlight = new LinkedHashMap<>();
    long target = 0;
    long expired = 0;
    long limit = 0;
    long latency = 0;
    if (concurrency != null) {
      limit = store.concurrencyLimit();
      latency = concurrency.adaptive() == null ? 0 : store.measuredLatencyMicros();
      target = store.inFlight();
      expired = store.expiredLeases();
      for (PriorityClass k : policy.priorities()) {
        QuotaHolder scope = QuotaHolder.priorityClass(k.name());
        inFlight.put(scope, store.inFlight(scope));
      }
      for (String tenant : new TreeMap<>(concurrency.tenants()).keySet()) {
        QuotaHolder scope = QuotaHolder.tenant(tenant);
        inFlight.put(scope, store.inFlight(scope));
      }
    }
    List<QuotaUse> quotas = new ArrayList<>();
    for (String k : new TreeMap<>(limits.classQuotas()).keySet()) {
      quotas.add(store.quotaUse(QuotaHolder.priorityClass(k)));
    }
    for (String tenant : new TreeMap<>(limits.tenantQuotas()).keySet()) {
      quotas.add(store.quotaUse(QuotaHolder.tenant(tenant)));
    }
    return new Read(limits, target, limit, latency, expired, inFlight, quotas);
  }

  /**
   * The limits read at one time.
   *
   * @param limits the policy's limits
   * @param inFlight calls holding a lease at the target
   * @param limit the target's concurrency limit in force (an adaptive one's current value)
   * @param latencyMicros the latency an adaptive limit measured last (µs; 0: none yet)
   * @param expired leases that expired unreleased
   * @param scopes calls holding a lease per class and per tenant with a limit of its own
   * @param quotas each class's and named tenant's quota use
   */
  record Read(
      Limits limits,
      long inFlight,
      long limit,
      long latencyMicros,
      long expired,
      Map<QuotaHolder, Long> scopes,
      List<QuotaUse> quotas) {

    String text() {
      StringBuilder out = new StringBuilder();
      Limits.Concurrency concurrency = limits.concurrency();
      if (concurrency != null) {
        out.append(
            String.format(
                "Calls in flight: %d of %s (lease TTL %ss), %d leases expired unreleased%n",
                inFlight,
                adaptive(concurrency, latencyMicros)
                    + (concurrency.maxInFlight() < Limits.MAX_IN_FLIGHT
                        ? Long.toString(limit)
                        : "no limit"),
                Output.number(concurrency.leaseTtl().toMillis() / 1000.0),
                expired));
        scopes.forEach(
            (scope, n) -> {
              Integer max = limit(concurrency, scope);
              out.append(
                  String.format(
                      "  %s %s: %d%s%n",
                      scope.kind() == QuotaHolder.Kind.TENANT ? "tenant" : "class",
                      scope.name(),
                      n,
                      max == null ? "" : " of " + max));
            });
      }
      if (!quotas.isEmpty() || limits.defaultTenantQuota() != null) {
        out.append("Quotas:\n");
      }
      for (QuotaUse use : quotas) {
        out.append(
            String.format(
                "  %s %s: used %s (held for calls in flight %s), remaining %s, resets at %s%n",
                use.holder().field(),
                AuditEntry.describe(use.quota()),
                Output.number(use.used()),
                Output.number(use.held()),
                Output.number(use.remaining()),
                use.resetAt()));
      }
      if (limits.defaultTenantQuota() != null) {
        out.append(
            String.format(
                "  quotas.default_tenant %s for each tenant without its own"
                    + " (admin quota show --tenant T)%n",
                AuditEntry.describe(limits.defaultTenantQuota())));
      }
      return out.toString();
    }

    ObjectNode json() {
      ObjectNode json = Output.JSON.createObjectNode();
      Limits.Concurrency concurrency = limits.concurrency();
      if (concurrency == null) {
        json.putNull("concurrency");
      } else {
        ObjectNode c = json.putObject("concurrency");
        c.put("in_flight", inFlight);
        c.put("max_in_flight", limit);
        Limits.Adaptive adaptive = concurrency.adaptive();
        if (adaptive == null) {
          c.putNull("adaptive");
        } else {
          ObjectNode node =
              c.putObject("adaptive")
                  .put("min", adaptive.min())
                  .put("max", adaptive.max())
                  .put("latency_target_s", adaptive.latencyTarget().toMillis() / 1000.0);
          if (latencyMicros > 0) {
            node.put("measured_latency_s", latencyMicros / 1e6);
          } else {
            node.putNull("measured_latency_s");
          }
        }
        c.put("lease_ttl_s", concurrency.leaseTtl().toMillis() / 1000.0);
        c.put("expired", expired);
        ObjectNode classes = c.putObject("classes");
        ObjectNode tenants = c.putObject("tenants");
        scopes.forEach(
            (scope, n) -> {
              ObjectNode node =
                  (scope.kind() == QuotaHolder.Kind.TENANT ? tenants : classes)
                      .putObject(scope.name());
              node.put("in_flight", n);
              Integer max = limit(concurrency, scope);
              if (max == null) {
                node.putNull("max_in_flight");
              } else {
                node.put("max_in_flight", max);
              }
            });
      }
      ObjectNode quotaNodes = json.putObject("quotas");
      for (QuotaUse use : quotas) {
        quotaNodes
            .putObject(use.holder().field())
            .put("amount", use.quota().amount())
            .put("unit", use.quota().unit().yamlName())
            .put("per", use.quota().period().unitName())
            .put("used", use.used())
            .put("held", use.held())
            .put("remaining", use.remaining())
            .put("reset_at", use.resetAt().toString());
      }
      return json;
    }

    /**
     * "an adaptive limit in [min, max] (latency target Ts, measured Ms), now " for an adaptive
     * limit ("none measured" before its first sample), else "".
     */
    private static String adaptive(Limits.Concurrency concurrency, long latencyMicros) {
      Limits.Adaptive adaptive = concurrency.adaptive();
      return adaptive == null
          ? ""
          : String.format(
              "an adaptive limit in [%d, %d] (latency target %ss, %s), now ",
              adaptive.min(),
              adaptive.max(),
              Output.number(adaptive.latencyTarget().toMillis() / 1000.0),
              latencyMicros > 0
                  ? "measured " + Output.number(latencyMicros / 1e6) + "s"
                  : "none measured");
    }

    private static @Nullable Integer limit(Limits.Concurrency concurrency, QuotaHolder scope) {
      return scope.kind() == QuotaHolder.Kind.TENANT
          ? concurrency.tenants().get(scope.name())
          : concurrency.classLimit(scope.name());
    }
  }
}
