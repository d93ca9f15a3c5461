package io.backpressure.redis;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.backpressure.core.Dimension;
import io.backpressure.core.InvalidPolicyException;
import io.backpressure.core.Limits;
import io.backpressure.core.Policy;
import io.backpressure.core.PriorityClass;
import io.backpressure.core.PriorityMode;
import io.backpressure.core.feedback.FeedbackPolicy;
import io.backpressure.core.spi.DerivedPolicy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;

/**
 * A policy as stored in the config hash: JSON with exact numbers (doubles in their shortest
 * round-trip form, durations in nanoseconds), so that reading it back gives an equal policy and
 * every worker computes bit-identical rates. Also serialises the numbers the scripts decide with
 * ({@link DerivedPolicy}).
 */
final class PolicyCodec {
  private static final ObjectMapper JSON = new ObjectMapper();

  private PolicyCodec() {}

  static String toJson(Policy policy) {
    ObjectNode root = JSON.createObjectNode();
    root.put("target", policy.target());
    ArrayNode dims = root.putArray("dimensions");
    for (Dimension d : policy.dimensions()) {
      dims.addObject()
          .put("name", d.name())
          .put("per_second", d.capPerSecond())
          .put("burst", d.burst());
    }
    ArrayNode classes = root.putArray("priorities");
    for (PriorityClass k : policy.priorities()) {
      ObjectNode node = classes.addObject().put("name", k.name()).put("weight", k.weight());
      if (k.maxWait() != null) {
        node.put("max_wait_ns", k.maxWait().toNanos());
      }
    }
    root.put("priority_mode", policy.priorityMode().yamlName());
    root.put("default_tenant_weight", policy.defaultTenantWeight());
    ObjectNode weights = root.putObject("tenant_weights");
    new TreeMap<>(policy.tenantWeights()).forEach(weights::put);
    root.put("reservation", policy.reservation());
    root.put("default_max_tokens", policy.defaultMaxTokens());
    root.put("idle_ttl_ns", policy.idleTtl().toNanos());
    if (policy.safeWindow() != null) {
      root.put("safe_window_ns", policy.safeWindow().toNanos());
    }
    root.put("share_horizon_ns", policy.shareHorizon().toNanos());
    root.put("grant_ttl_ns", policy.grantTtl().toNanos());
    FeedbackPolicy f = policy.feedback();
    root.putObject("feedback")
        .put("enabled", f.enabled())
        .put("period_ns", f.period().toNanos())
        .put("decrease", f.decrease())
        .put("increase", f.increase())
        .put("floor", f.floor())
        .put("headroom", f.headroom())
        .put("cooldown_ns", f.cooldown().toNanos())
        .put("outside_weight", f.outsideWeight())
        .put("ramp_fraction", f.rampFraction())
        .put("ramp_duration_ns", f.rampDuration().toNanos())
        .put("outage_errors", f.outageErrors());
    if (policy.limits().any()) {
      limitsToJson(root.putObject("limits"), policy.limits());
    }
    return write(root);
  }

  private static void limitsToJson(ObjectNode node, Limits limits) {
    Limits.Concurrency concurrency = limits.concurrency();
    if (concurrency != null) {
      ObjectNode c =
          node.putObject("concurrency")
              .put("max_in_flight", concurrency.maxInFlight())
              .put("lease_ttl_ns", concurrency.leaseTtl().toNanos());
      ObjectNode classes = c.putObject("classes");
      new TreeMap<>(concurrency.classes()).forEach(classes::put);
      ObjectNode tenants = c.putObject("tenants");
      new TreeMap<>(concurrency.tenants()).forEach(tenants::put);
      if (concurrency.defaultTenant() != null) {
        c.put("default_tenant", concurrency.defaultTenant());
      }
      Limits.Adaptive adaptive = concurrency.adaptive();
      if (adaptive != null) {
        c.putObject("adaptive")
            .put("min", adaptive.min())
            .put("max", adaptive.max())
            .put("latency_target_ns", adaptive.latencyTarget().toNanos());
      }
    }
    ArrayNode calendar = node.putArray("calendar");
    for (Limits.Calendar c : limits.calendar()) {
      calendar
          .addObject()
          .put("dimension", c.dimension())
          .put("period", c.period().name())
          .put("limit", c.limit());
    }
    node.put("time_zone", limits.timeZone().getId());
    if (limits.price() != null) {
      node.putObject("price")
          .put("input_per_million", limits.price().inputPerMillion())
          .put("output_per_million", limits.price().outputPerMillion());
    }
    ObjectNode tenants = node.putObject("tenant_quotas");
    new TreeMap<>(limits.tenantQuotas()).forEach((t, q) -> quotaToJson(tenants.putObject(t), q));
    if (limits.defaultTenantQuota() != null) {
      quotaToJson(node.putObject("default_tenant_quota"), limits.defaultTenantQuota());
    }
    ObjectNode classes = node.putObject("class_quotas");
    new TreeMap<>(limits.classQuotas()).forEach((k, q) -> quotaToJson(classes.putObject(k), q));
  }

  private static void quotaToJson(ObjectNode node, Limits.Quota quota) {
    node.put("amount", quota.amount())
        .put("unit", quota.unit().name())
        .put("period", quota.period().name());
  }

  /** The stored adaptive concurrency limit; none when not stored. */
  private static Limits.@Nullable Adaptive adaptive(@Nullable JsonNode a) {
    return a == null
        ? null
        : new Limits.Adaptive(
            a.required("min").asInt(),
            a.required("max").asInt(),
            Duration.ofNanos(a.required("latency_target_ns").asLong()));
  }

  /** The stored limits; a policy stored without any has none. */
  private static Limits limits(JsonNode node) {
    if (node == null) {
      return Limits.NONE;
    }
    JsonNode c = node.get("concurrency");
    Limits.Concurrency concurrency =
        c == null
            ? null
            : new Limits.Concurrency(
                c.required("max_in_flight").asInt(),
                Duration.ofNanos(c.required("lease_ttl_ns").asLong()),
                inFlightLimits(c.get("classes")),
                inFlightLimits(c.get("tenants")),
                c.hasNonNull("default_tenant") ? c.path("default_tenant").asInt() : null,
                adaptive(c.get("adaptive")));
    List<Limits.Calendar> calendar = new ArrayList<>();
    for (JsonNode e : node.required("calendar")) {
      calendar.add(
          new Limits.Calendar(
              e.required("dimension").asText(),
              Limits.Period.valueOf(e.required("period").asText()),
              e.required("limit").asDouble()));
    }
    JsonNode p = node.get("price");
    Limits.Price price =
        p == null
            ? null
            : new Limits.Price(
                p.required("input_per_million").asDouble(),
                p.required("output_per_million").asDouble());
    Map<String, Limits.Quota> tenants = new LinkedHashMap<>();
    for (Map.Entry<String, JsonNode> e : node.required("tenant_quotas").properties()) {
      tenants.put(e.getKey(), quota(e.getValue()));
    }
    Map<String, Limits.Quota> classes = new LinkedHashMap<>();
    for (Map.Entry<String, JsonNode> e : node.required("class_quotas").properties()) {
      classes.put(e.getKey(), quota(e.getValue()));
    }
    JsonNode byDefault = node.get("default_tenant_quota");
    return new Limits(
        concurrency,
        calendar,
        Limits.zone(node.required("time_zone").asText()),
        price,
        tenants,
        byDefault == null ? null : quota(byDefault),
        classes);
  }

  /** A stored map of scopes' in-flight limits; none when the policy was stored without it. */
  private static Map<String, Integer> inFlightLimits(@Nullable JsonNode node) {
    Map<String, Integer> limits = new LinkedHashMap<>();
    if (node != null) {
      for (Map.Entry<String, JsonNode> e : node.properties()) {
        limits.put(e.getKey(), e.getValue().asInt());
      }
    }
    return limits;
  }

  private static Limits.Quota quota(JsonNode q) {
    return new Limits.Quota(
        q.required("amount").asDouble(),
        Limits.QuotaUnit.valueOf(q.required("unit").asText()),
        Limits.Period.valueOf(q.required("period").asText()));
  }

  /**
   * Reads a stored policy back; the policy's own checks run again.
   *
   * @throws InvalidPolicyException if the stored text is not a valid policy
   */
  static Policy fromJson(String json) {
    try {
      JsonNode root = JSON.readTree(json);
      List<Dimension> dims = new ArrayList<>();
      for (JsonNode d : root.required("dimensions")) {
        dims.add(
            new Dimension(
                d.required("name").asText(),
                d.required("per_second").asDouble(),
                d.required("burst").asDouble()));
      }
      List<PriorityClass> classes = new ArrayList<>();
      for (JsonNode k : root.required("priorities")) {
        JsonNode maxWait = k.get("max_wait_ns");
        classes.add(
            new PriorityClass(
                k.required("name").asText(),
                k.required("weight").asDouble(),
                maxWait == null ? null : Duration.ofNanos(maxWait.asLong())));
      }
      Map<String, Double> weights = new LinkedHashMap<>();
      for (Map.Entry<String, JsonNode> e : root.required("tenant_weights").properties()) {
        weights.put(e.getKey(), e.getValue().asDouble());
      }
      JsonNode safe = root.get("safe_window_ns");
      return new Policy(
          root.required("target").asText(),
          dims,
          classes,
          weights,
          root.required("default_tenant_weight").asDouble(),
          root.required("reservation").asBoolean(),
          root.required("default_max_tokens").asLong(),
          Duration.ofNanos(root.required("idle_ttl_ns").asLong()),
          safe == null ? null : Duration.ofNanos(safe.asLong()),
          Duration.ofNanos(root.required("share_horizon_ns").asLong()),
          Duration.ofNanos(root.required("grant_ttl_ns").asLong()),
          "strict".equals(root.path("priority_mode").asText("shared"))
              ? PriorityMode.STRICT
              : PriorityMode.SHARED,
          feedback(root.get("feedback")),
          limits(root.get("limits")));
    } catch (JsonProcessingException | IllegalArgumentException e) {
      if (e instanceof InvalidPolicyException invalid) {
        throw invalid;
      }
      throw new InvalidPolicyException(
          "(stored policy)", "the stored policy is not readable: " + e.getMessage(), e);
    }
  }

  /** The stored feedback parameters; a policy stored before they existed gets the defaults. */
  private static FeedbackPolicy feedback(JsonNode f) {
    if (f == null) {
      return FeedbackPolicy.DEFAULT;
    }
    return new FeedbackPolicy(
        f.required("enabled").asBoolean(),
        Duration.ofNanos(f.required("period_ns").asLong()),
        f.required("decrease").asDouble(),
        f.required("increase").asDouble(),
        f.required("floor").asDouble(),
        f.required("headroom").asDouble(),
        Duration.ofNanos(f.required("cooldown_ns").asLong()),
        f.required("outside_weight").asDouble(),
        f.required("ramp_fraction").asDouble(),
        Duration.ofNanos(f.required("ramp_duration_ns").asLong()),
        f.required("outage_errors").asInt());
  }

  /** The dimension and class names, in order: what the derived state is laid out by. */
  static String layout(Policy policy) {
    ObjectNode root = JSON.createObjectNode();
    ArrayNode dims = root.putArray("dimensions");
    policy.dimensionNames().forEach(dims::add);
    ArrayNode classes = root.putArray("priorities");
    policy.priorityNames().forEach(classes::add);
    return write(root);
  }

  /**
   * The numbers the scripts decide with: exactly those of {@link DerivedPolicy} (the one derivation
   * both backends read), in the order {@code decode_params} in nested_buckets.lua reads them: dims,
   * classes, then per dimension the refill rate, the burst and the largest cost that can ever fit,
   * the class weights, the share horizon in seconds and in µs, the idle TTL in µs, the grant TTL in
   * µs and in ms (for {@code PX}), the safe window in µs (0 for none), per dimension its allowance,
   * and 1 in strict priority mode (else 0). Class wait limits are not among them: the client
   * resolves each call's limit ({@code RequestCheck.maxWait}) and sends it with the call. Each is
   * written in Java's shortest round-trip form, which Lua's {@code tonumber} reads back to the same
   * double.
   */
  static List<String> params(Policy policy) {
    DerivedPolicy derived = DerivedPolicy.of(policy);
    List<String> out = new ArrayList<>();
    int dims = derived.dimensions();
    out.add(Integer.toString(dims));
    out.add(Integer.toString(derived.classes()));
    for (int d = 0; d < dims; d++) {
      out.add(Double.toString(derived.rate(d)));
    }
    for (int d = 0; d < dims; d++) {
      out.add(Double.toString(derived.burst(d)));
    }
    for (int d = 0; d < dims; d++) {
      out.add(Double.toString(derived.largest(d)));
    }
    for (int k = 0; k < derived.classes(); k++) {
      out.add(Double.toString(derived.classWeight(k)));
    }
    out.add(Double.toString(derived.horizonSeconds()));
    out.add(Long.toString(derived.horizonMicros()));
    out.add(Long.toString(derived.idleTtlMicros()));
    out.add(Long.toString(derived.grantTtlMicros()));
    out.add(Long.toString(derived.grantTtlMillis()));
    out.add(Long.toString(derived.safeWindowMicros()));
    for (int d = 0; d < dims; d++) {
      out.add(Double.toString(derived.allowance(d)));
    }
    out.add(derived.strict() ? "1" : "0");
    return out;
  }

  private static String write(JsonNode node) {
    try {
      return JSON.writeValueAsString(node);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }
}
