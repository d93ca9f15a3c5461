package io.backpressure.policy.yaml;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonStreamContext;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.core.exc.StreamReadException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLGenerator;
import io.backpressure.core.Dimension;
import io.backpressure.core.InvalidPolicyException;
import io.backpressure.core.Limits;
import io.backpressure.core.Policy;
import io.backpressure.core.PriorityClass;
import io.backpressure.core.PriorityMode;
import io.backpressure.core.feedback.FeedbackPolicy;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Iterator;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * Reads and writes the policy YAML format. Unknown keys are errors that name them, so a typo never
 * silently falls back to a default; so are a key given twice, a value of the wrong type (no
 * coercion: {@code enabled} must be a boolean, {@code default_max_tokens} an integer, a mapping
 * must be a mapping) and a second YAML document in the same text. Stateless and thread-safe.
 *
 * <pre>{@code
 * target: openai/gpt-4o
 * dimensions:                      # each: per_second or per_minute, optional burst
 *   requests: {per_minute: 3600, burst: 60}
 *   tokens: {per_minute: 720000}   # burst defaults to one second of cap (requests: at least 1)
 * priorities: {P1: 0.5, P2: 0.3, P3: {weight: 0.2, max_wait: 30s}}   # highest first
 * priority_mode: shared            # or strict
 * tenants: {default_weight: 1.0, weights: {acme: 2.0}}
 * reservation: {enabled: false, default_max_tokens: 1024}
 * idle_ttl: 10s
 * safe_window: 60s                 # default: 60s when a cap is per_minute, else off; "off" for none
 * send_margin: 0s                  # widens safe_window by it, caps scaled to keep its allowance
 * share_horizon: 1s
 * grant_ttl: 15m
 * feedback: {enabled: true, period: 60s}   # all keys: see FeedbackPolicy
 * # limits beyond the per-second caps (see Limits)
 * # a dimension may add per_day and per_month: {per_minute: 30000, per_day: 1000000}
 * time_zone: America/Los_Angeles   # the calendar windows' and quotas' zone; default UTC
 * concurrency:                     # calls in flight at once, each holding a lease until released
 *   max_in_flight: 64              # the target's; optional when classes or tenants are limited
 *   # adaptive: {min: 4, max: 256, latency_target: 5s}   # instead of max_in_flight: AIMD
 *   lease_ttl: 60s                 # a lease never released (a crashed worker) expires after it
 *   classes: {P3: 16}              # a class's calls, whatever their tenants
 *   tenants: {acme: 8}             # a tenant's calls
 *   default_tenant: 4              # every tenant not named under tenants
 * quotas:
 *   price: {input_per_million: 2.50, output_per_million: 10.00}   # for quotas in currency
 *   default_tenant: {tokens: 1000000, per: day}   # every tenant not named under tenants
 *   tenants: {acme: {currency: 50, per: month}}
 *   classes: {P3: {tokens: 5000000, per: day}}
 * }</pre>
 */
public final class PolicyYaml {
  private static final ObjectMapper YAML =
      new ObjectMapper(
          YAMLFactory.builder()
              .disable(YAMLGenerator.Feature.WRITE_DOC_START_MARKER)
              .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
              .build());
  private static final Pattern DURATION = Pattern.compile("(\\d+(?:\\.\\d+)?)\\s*(ms|s|m|h)");

  private PolicyYaml() {}

  /**
   * Reads a policy from YAML text.
   *
   * @throws InvalidPolicyException naming the field at fault (a dotted path such as {@code
   *     dimensions.requests.burst}, or {@code (document)} when the text is not one YAML mapping)
   *     and the allowed values; the message never quotes more of the text than the offending key
   */
  public static Policy parse(String text) {
    JsonNode root = readOneDocument(text);
    if (root == null || !root.isObject()) {
      throw new InvalidPolicyException("(document)", "a policy must be a YAML mapping");
    }
    onlyKeys(
        root,
        "",
        Set.of(
            "target",
            "dimensions",
            "priorities",
            "tenants",
            "reservation",
            "idle_ttl",
            "safe_window",
            "send_margin",
            "share_horizon",
            "grant_ttl",
            "feedback",
            "priority_mode",
            "time_zone",
            "concurrency",
            "quotas"));
    Policy.Builder builder = Policy.builder(text(root, "target"));

    JsonNode dims = required(root, "dimensions");
    for (Iterator<Map.Entry<String, JsonNode>> it = dims.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> entry = it.next();
      String path = "dimensions." + entry.getKey();
      JsonNode dim = entry.getValue();
      if (!dim.isObject()) {
        throw new InvalidPolicyException(
            path, path + " must be a mapping with per_second or per_minute");
      }
      onlyKeys(
          dim, path + ".", Set.of("per_second", "per_minute", "burst", "per_day", "per_month"));
      for (Limits.Period period : Limits.Period.values()) {
        if (dim.has(period.yamlName())) {
          double limit = number(dim, path + "." + period.yamlName(), period.yamlName());
          if (period == Limits.Period.DAY) {
            builder.perDay(entry.getKey(), limit);
          } else {
            builder.perMonth(entry.getKey(), limit);
          }
        }
      }
      boolean perSecond = dim.has("per_second");
      boolean perMinute = dim.has("per_minute");
      if (perSecond == perMinute) {
        throw new InvalidPolicyException(
            path, path + " needs exactly one of per_second or per_minute");
      }
      double cap =
          perSecond
              ? number(dim, path + ".per_second", "per_second")
              : number(dim, path + ".per_minute", "per_minute") / 60.0;
      if (perMinute) {
        builder.providerPeriod(Duration.ofMinutes(1));
      }
      double burst =
          dim.has("burst")
              ? number(dim, path + ".burst", "burst")
              : Dimension.REQUESTS.equals(entry.getKey()) ? Math.max(1, cap) : cap;
      builder.dimension(entry.getKey(), cap, burst);
    }

    JsonNode classes = required(root, "priorities");
    for (Iterator<Map.Entry<String, JsonNode>> it = classes.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> entry = it.next();
      String path = "priorities." + entry.getKey();
      if (entry.getValue().isObject()) {
        JsonNode longForm = entry.getValue();
        onlyKeys(longForm, path + ".", Set.of("weight", "max_wait"));
        Duration maxWait =
            longForm.has("max_wait") && !longForm.get("max_wait").isNull()
                ? duration(longForm, "max_wait", path + ".max_wait")
                : null;
        builder.priority(entry.getKey(), number(longForm, path + ".weight", "weight"), maxWait);
      } else {
        builder.priority(entry.getKey(), number(classes, path, entry.getKey()));
      }
    }
    if (root.has("priority_mode")) {
      JsonNode mode = root.get("priority_mode");
      String modeName = mode.isTextual() ? mode.asText() : String.valueOf(mode);
      builder.priorityMode(
          switch (modeName) {
            case "shared" -> PriorityMode.SHARED;
            case "strict" -> PriorityMode.STRICT;
            default ->
                throw new InvalidPolicyException(
                    "priority_mode",
                    "priority_mode must be one of shared, strict, got '" + modeName + "'");
          });
    }

    JsonNode tenants = root.get("tenants");
    if (tenants != null) {
      onlyKeys(tenants, "tenants.", Set.of("default_weight", "weights"));
      if (tenants.has("default_weight")) {
        builder.defaultTenantWeight(number(tenants, "tenants.default_weight", "default_weight"));
      }
      JsonNode weights = tenants.get("weights");
      if (weights != null) {
        if (!weights.isObject()) {
          throw new InvalidPolicyException(
              "tenants.weights",
              "tenants.weights must be a mapping of tenant to weight, got " + kind(weights));
        }
        for (Iterator<Map.Entry<String, JsonNode>> it = weights.fields(); it.hasNext(); ) {
          Map.Entry<String, JsonNode> entry = it.next();
          builder.tenantWeight(
              entry.getKey(), number(weights, "tenants.weights." + entry.getKey(), entry.getKey()));
        }
      }
    }

    JsonNode reservation = root.get("reservation");
    if (reservation != null) {
      onlyKeys(reservation, "reservation.", Set.of("enabled", "default_max_tokens"));
      boolean enabled = bool(reservation, "reservation.enabled", "enabled", false);
      long maxTokens =
          reservation.has("default_max_tokens")
              ? integer(reservation, "reservation.default_max_tokens", "default_max_tokens")
              : 1024;
      builder.reservation(enabled, maxTokens);
    }
    if (root.has("idle_ttl")) {
      builder.idleTtl(duration(root, "idle_ttl"));
    }
    if (root.has("safe_window")) {
      builder.safeWindow(safeWindow(root));
    }
    if (root.has("send_margin")) {
      builder.sendMargin(duration(root, "send_margin"));
    }
    if (root.has("share_horizon")) {
      builder.shareHorizon(duration(root, "share_horizon"));
    }
    if (root.has("grant_ttl")) {
      builder.grantTtl(duration(root, "grant_ttl"));
    }
    if (root.has("feedback")) {
      builder.feedback(feedback(root.get("feedback")));
    }
    if (root.has("time_zone")) {
      builder.timeZone(text(root, "time_zone"));
    }
    JsonNode concurrency = root.get("concurrency");
    if (concurrency != null) {
      concurrency(concurrency, builder);
    }
    JsonNode quotas = root.get("quotas");
    if (quotas != null) {
      quotas(quotas, builder);
    }
    return builder.build();
  }

  /**
   * The {@code concurrency:} block: the target's limit (fixed, or adaptive) and lease TTL, and the
   * limits of classes and tenants. Without {@code max_in_flight} or {@code adaptive} the target is
   * unlimited, and a class or tenant must be.
   */
  private static void concurrency(JsonNode node, Policy.Builder builder) {
    onlyKeys(
        node,
        "concurrency.",
        Set.of("max_in_flight", "adaptive", "lease_ttl", "classes", "tenants", "default_tenant"));
    boolean scoped = node.has("classes") || node.has("tenants") || node.has("default_tenant");
    if (!node.has("max_in_flight") && !node.has("adaptive") && !scoped) {
      throw new InvalidPolicyException(
          "concurrency.max_in_flight",
          "concurrency.max_in_flight (or concurrency.adaptive) is required unless classes,"
              + " tenants or default_tenant are limited");
    }
    if (node.has("max_in_flight") && node.has("adaptive")) {
      throw new InvalidPolicyException(
          "concurrency.adaptive",
          "concurrency.adaptive and concurrency.max_in_flight exclude each other: the adaptive"
              + " limit moves within [adaptive.min, adaptive.max]");
    }
    Duration ttl =
        node.has("lease_ttl")
            ? duration(node, "lease_ttl", "concurrency.lease_ttl")
            : Limits.Concurrency.DEFAULT_LEASE_TTL;
    JsonNode adaptive = node.get("adaptive");
    if (adaptive != null) {
      if (!adaptive.isObject()) {
        throw new InvalidPolicyException(
            "concurrency.adaptive",
            "concurrency.adaptive must be a mapping {min, max, latency_target}, got "
                + kind(adaptive));
      }
      onlyKeys(adaptive, "concurrency.adaptive.", Set.of("min", "max", "latency_target"));
      for (String key : new String[] {"min", "max", "latency_target"}) {
        if (!adaptive.has(key)) {
          throw new InvalidPolicyException(
              "concurrency.adaptive." + key, "concurrency.adaptive." + key + " is required");
        }
      }
      builder.adaptiveConcurrency(
          inFlight(adaptive, "concurrency.adaptive.min", "min"),
          inFlight(adaptive, "concurrency.adaptive.max", "max"),
          duration(adaptive, "latency_target", "concurrency.adaptive.latency_target"),
          ttl);
    } else {
      builder.concurrency(
          node.has("max_in_flight")
              ? inFlight(node, "concurrency.max_in_flight", "max_in_flight")
              : Limits.MAX_IN_FLIGHT,
          ttl);
    }
    if (node.has("default_tenant")) {
      builder.defaultTenantConcurrency(
          inFlight(node, "concurrency.default_tenant", "default_tenant"));
    }
    for (String scope : new String[] {"classes", "tenants"}) {
      JsonNode named = node.get(scope);
      if (named == null) {
        continue;
      }
      onlyKeys(named, "concurrency." + scope + ".", null);
      for (Iterator<String> it = named.fieldNames(); it.hasNext(); ) {
        String name = it.next();
        int limit = inFlight(named, "concurrency." + scope + "." + name, name);
        if (scope.equals("classes")) {
          builder.classConcurrency(name, limit);
        } else {
          builder.tenantConcurrency(name, limit);
        }
      }
    }
  }

  /** An in-flight limit: a whole number in {@code [1, 1000000]}. */
  private static int inFlight(JsonNode node, String field, String key) {
    long max = integer(node, field, key);
    if (max < 1 || max > Limits.MAX_IN_FLIGHT) {
      throw new InvalidPolicyException(
          field,
          field + " must be a whole number in [1, " + Limits.MAX_IN_FLIGHT + "], got " + max);
    }
    return (int) max;
  }

  /** The {@code quotas:} block: a price, a default tenant quota, tenants' and classes' quotas. */
  private static void quotas(JsonNode node, Policy.Builder builder) {
    onlyKeys(node, "quotas.", Set.of("price", "default_tenant", "tenants", "classes"));
    JsonNode price = node.get("price");
    if (price != null) {
      onlyKeys(price, "quotas.price.", Set.of("input_per_million", "output_per_million"));
      builder.price(
          number(price, "quotas.price.input_per_million", "input_per_million"),
          number(price, "quotas.price.output_per_million", "output_per_million"));
    }
    if (node.has("default_tenant")) {
      builder.defaultTenantQuota(quota(node.get("default_tenant"), "quotas.default_tenant"));
    }
    for (String scope : new String[] {"tenants", "classes"}) {
      JsonNode named = node.get(scope);
      if (named == null) {
        continue;
      }
      onlyKeys(named, "quotas." + scope + ".", null);
      for (Iterator<Map.Entry<String, JsonNode>> it = named.fields(); it.hasNext(); ) {
        Map.Entry<String, JsonNode> entry = it.next();
        Limits.Quota quota = quota(entry.getValue(), "quotas." + scope + "." + entry.getKey());
        if (scope.equals("tenants")) {
          builder.tenantQuota(entry.getKey(), quota);
        } else {
          builder.classQuota(entry.getKey(), quota);
        }
      }
    }
  }

  /** One quota: {@code {tokens: N, per: day}} or {@code {currency: X, per: month}}. */
  private static Limits.Quota quota(JsonNode node, String path) {
    onlyKeys(node, path + ".", Set.of("tokens", "currency", "per"));
    if (node.has("tokens") == node.has("currency")) {
      throw new InvalidPolicyException(path, path + " needs exactly one of tokens or currency");
    }
    Limits.QuotaUnit unit =
        node.has("tokens") ? Limits.QuotaUnit.TOKENS : Limits.QuotaUnit.CURRENCY;
    String amountKey = unit.yamlName();
    double amount = number(node, path + "." + amountKey, amountKey);
    if (!(amount > 0) || !(amount <= 1e15)) {
      throw new InvalidPolicyException(
          path + "." + amountKey,
          path + "." + amountKey + " must be a number in (0, 1000000000000000], got " + amount);
    }
    JsonNode per = node.get("per");
    String perText =
        per == null ? "nothing" : per.isTextual() ? "'" + per.asText() + "'" : kind(per);
    Limits.Period period =
        per == null || !per.isTextual()
            ? null
            : switch (per.asText()) {
              case "day" -> Limits.Period.DAY;
              case "month" -> Limits.Period.MONTH;
              default -> null;
            };
    if (period == null) {
      throw new InvalidPolicyException(
          path + ".per", path + ".per must be one of day, month, got " + perText);
    }
    return new Limits.Quota(amount, unit, period);
  }

  /**
   * The {@code safe_window} value: a duration, or {@code off} (also {@code false} or {@code null})
   * for none. Left out, it is the provider's period when a cap is given {@code per_minute}.
   */
  private static @Nullable Duration safeWindow(JsonNode root) {
    JsonNode value = root.get("safe_window");
    if (value.isNull()
        || (value.isBoolean() && !value.asBoolean())
        || (value.isTextual() && value.asText().strip().equals("off"))) {
      return null;
    }
    if (value.isBoolean()) {
      throw new InvalidPolicyException(
          "safe_window", "safe_window must be a duration such as 60s, or off, got " + kind(value));
    }
    return duration(root, "safe_window");
  }

  /** The one YAML document of {@code text}; a duplicate key or a second document is an error. */
  private static JsonNode readOneDocument(String text) {
    try (JsonParser parser = YAML.createParser(text)) {
      JsonNode root;
      try {
        root = YAML.readTree(parser);
      } catch (StreamReadException e) {
        String path = dotted(parser.getParsingContext());
        String field = path.isEmpty() ? "(document)" : path;
        String message = e.getOriginalMessage();
        if (message != null && message.startsWith("Duplicate field")) {
          throw new InvalidPolicyException(
              field,
              field
                  + " is given twice (line "
                  + e.getLocation().getLineNr()
                  + "); each key may appear once",
              e);
        }
        throw new InvalidPolicyException("(document)", "malformed policy YAML: " + message, e);
      }
      if (parser.nextToken() != null) {
        throw new InvalidPolicyException(
            "(document)",
            "a policy is one YAML document; a second one starts at line "
                + parser.currentLocation().getLineNr());
      }
      return root;
    } catch (JsonProcessingException e) {
      throw new InvalidPolicyException(
          "(document)", "malformed policy YAML: " + e.getOriginalMessage(), e);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The dotted path of a parser position, e.g. {@code dimensions.requests}. */
  private static String dotted(JsonStreamContext context) {
    StringBuilder path = new StringBuilder();
    for (JsonStreamContext c = context; c != null && !c.inRoot(); c = c.getParent()) {
      String name =
          c.inObject()
              ? c.getCurrentName()
              : c.inArray() ? Integer.toString(c.getCurrentIndex()) : null;
      if (name != null) {
        path.insert(0, path.length() == 0 ? name : name + ".");
      }
    }
    return path.toString();
  }

  /**
   * Reads a policy from a YAML file (UTF-8).
   *
   * @throws IOException when the file cannot be read
   * @throws InvalidPolicyException as {@link #parse(String)}
   */
  public static Policy read(Path file) throws IOException {
    return parse(Files.readString(file));
  }

  /**
   * The YAML of {@code policy}, which {@link #parse(String)} reads back to an equal policy. No
   * {@code send_margin}: a policy read with one is the widened policy ({@link
   * Policy#withSendMargin}), written with its widened window and scaled caps.
   */
  public static String render(Policy policy) {
    ObjectNode root = YAML.createObjectNode();
    root.put("target", policy.target());
    ObjectNode dims = root.putObject("dimensions");
    for (Dimension d : policy.dimensions()) {
      dims.putObject(d.name()).put("per_second", d.capPerSecond()).put("burst", d.burst());
    }
    ObjectNode classes = root.putObject("priorities");
    for (PriorityClass k : policy.priorities()) {
      if (k.maxWait() == null) {
        classes.put(k.name(), k.weight());
      } else {
        classes.putObject(k.name()).put("weight", k.weight()).put("max_wait", millis(k.maxWait()));
      }
    }
    root.put("priority_mode", policy.priorityMode().yamlName());
    ObjectNode tenants = root.putObject("tenants");
    tenants.put("default_weight", policy.defaultTenantWeight());
    ObjectNode weights = tenants.putObject("weights");
    policy.tenantWeights().entrySet().stream()
        .sorted(Map.Entry.comparingByKey())
        .forEach(e -> weights.put(e.getKey(), e.getValue()));
    root.putObject("reservation")
        .put("enabled", policy.reservation())
        .put("default_max_tokens", policy.defaultMaxTokens());
    root.put("idle_ttl", millis(policy.idleTtl()));
    if (policy.safeWindow() != null) {
      root.put("safe_window", millis(policy.safeWindow()));
    }
    root.put("share_horizon", millis(policy.shareHorizon()));
    root.put("grant_ttl", millis(policy.grantTtl()));
    renderFeedback(root.putObject("feedback"), policy.feedback());
    renderLimits(root, dims, policy.limits());
    try {
      return YAML.writeValueAsString(root);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }

  /** The limits: calendar caps into their dimensions, the zone, concurrency and quotas. */
  private static void renderLimits(ObjectNode root, ObjectNode dims, Limits limits) {
    if (!limits.any()) {
      return;
    }
    for (Limits.Calendar c : limits.calendar()) {
      ((ObjectNode) dims.get(c.dimension())).put(c.period().yamlName(), c.limit());
    }
    root.put("time_zone", limits.timeZone().getId());
    Limits.Concurrency concurrency = limits.concurrency();
    if (concurrency != null) {
      ObjectNode c = root.putObject("concurrency");
      Limits.Adaptive adaptive = concurrency.adaptive();
      if (adaptive != null) {
        c.putObject("adaptive")
            .put("min", adaptive.min())
            .put("max", adaptive.max())
            .put("latency_target", millis(adaptive.latencyTarget()));
      } else if (concurrency.maxInFlight() < Limits.MAX_IN_FLIGHT || !concurrency.scoped()) {
        c.put("max_in_flight", concurrency.maxInFlight());
      }
      c.put("lease_ttl", millis(concurrency.leaseTtl()));
      if (!concurrency.classes().isEmpty()) {
        ObjectNode classes = c.putObject("classes");
        new TreeMap<>(concurrency.classes()).forEach(classes::put);
      }
      if (!concurrency.tenants().isEmpty()) {
        ObjectNode tenants = c.putObject("tenants");
        new TreeMap<>(concurrency.tenants()).forEach(tenants::put);
      }
      if (concurrency.defaultTenant() != null) {
        c.put("default_tenant", concurrency.defaultTenant());
      }
    }
    if (limits.price() == null
        && limits.defaultTenantQuota() == null
        && limits.tenantQuotas().isEmpty()
        && limits.classQuotas().isEmpty()) {
      return;
    }
    ObjectNode quotas = root.putObject("quotas");
    if (limits.price() != null) {
      quotas
          .putObject("price")
          .put("input_per_million", limits.price().inputPerMillion())
          .put("output_per_million", limits.price().outputPerMillion());
    }
    if (limits.defaultTenantQuota() != null) {
      renderQuota(quotas.putObject("default_tenant"), limits.defaultTenantQuota());
    }
    ObjectNode tenants = quotas.putObject("tenants");
    new TreeMap<>(limits.tenantQuotas()).forEach((t, q) -> renderQuota(tenants.putObject(t), q));
    ObjectNode classes = quotas.putObject("classes");
    new TreeMap<>(limits.classQuotas()).forEach((k, q) -> renderQuota(classes.putObject(k), q));
  }

  private static void renderQuota(ObjectNode node, Limits.Quota quota) {
    node.put(quota.unit().yamlName(), quota.amount()).put("per", quota.period().unitName());
  }

  /** The {@code feedback:} block; keys left out keep {@link FeedbackPolicy#DEFAULT}'s values. */
  private static FeedbackPolicy feedback(JsonNode node) {
    onlyKeys(
        node,
        "feedback.",
        Set.of(
            "enabled",
            "period",
            "decrease",
            "increase",
            "floor",
            "headroom",
            "cooldown",
            "outside_weight",
            "ramp",
            "outage_errors"));
    FeedbackPolicy.Builder b = FeedbackPolicy.DEFAULT.toBuilder();
    if (node.has("enabled")) {
      JsonNode enabled = node.get("enabled");
      if (!enabled.isBoolean()) {
        throw new InvalidPolicyException(
            "feedback.enabled", "feedback.enabled must be true or false, got " + enabled);
      }
      b.enabled(enabled.asBoolean());
    }
    if (node.has("period")) {
      b.period(feedbackDuration(node, "period"));
    }
    if (node.has("decrease")) {
      b.decrease(number(node, "feedback.decrease", "decrease"));
    }
    if (node.has("increase")) {
      b.increase(number(node, "feedback.increase", "increase"));
    }
    if (node.has("floor")) {
      b.floor(number(node, "feedback.floor", "floor"));
    }
    if (node.has("headroom")) {
      b.headroom(number(node, "feedback.headroom", "headroom"));
    }
    if (node.has("cooldown")) {
      b.cooldown(feedbackDuration(node, "cooldown"));
    }
    if (node.has("outside_weight")) {
      b.outsideWeight(number(node, "feedback.outside_weight", "outside_weight"));
    }
    if (node.has("outage_errors")) {
      double errors = number(node, "feedback.outage_errors", "outage_errors");
      if (errors != Math.rint(errors) || errors < 1 || errors > 1000) {
        throw new InvalidPolicyException(
            "feedback.outage_errors",
            "feedback.outage_errors must be a whole number in [1, 1000], got " + errors);
      }
      b.outageErrors((int) errors);
    }
    FeedbackPolicy sofar = b.build();
    JsonNode ramp = node.get("ramp");
    if (ramp != null) {
      onlyKeys(ramp, "feedback.ramp.", Set.of("fraction", "duration"));
      double fraction =
          ramp.has("fraction")
              ? number(ramp, "feedback.ramp.fraction", "fraction")
              : sofar.rampFraction();
      Duration duration =
          ramp.has("duration") ? feedbackDuration(ramp, "ramp.duration") : sofar.rampDuration();
      b.ramp(fraction, duration);
    }
    return b.build();
  }

  private static Duration feedbackDuration(JsonNode node, String path) {
    String field = "feedback." + path;
    JsonNode value = node.get(path.substring(path.lastIndexOf('.') + 1));
    if (value != null && value.isNumber()) {
      return Duration.ofNanos(Math.round(value.asDouble() * 1e9));
    }
    if (value == null || !value.isTextual()) {
      throw new InvalidPolicyException(
          field, field + " must be a duration such as 10s, got " + value);
    }
    return parseDuration(field, value.asText());
  }

  private static void renderFeedback(ObjectNode node, FeedbackPolicy f) {
    node.put("enabled", f.enabled())
        .put("period", nanos(f.period()))
        .put("decrease", f.decrease())
        .put("increase", f.increase())
        .put("floor", f.floor())
        .put("headroom", f.headroom())
        .put("cooldown", nanos(f.cooldown()))
        .put("outside_weight", f.outsideWeight())
        .put("outage_errors", f.outageErrors());
    node.putObject("ramp")
        .put("fraction", f.rampFraction())
        .put("duration", nanos(f.rampDuration()));
  }

  /** A duration in ISO-8601 ({@code PT0.25S}): exact, unlike the millisecond text. */
  private static String nanos(Duration d) {
    return d.toString();
  }

  /** Parses {@code 250ms}, {@code 10s}, {@code 1.5m}, {@code 2h} or ISO-8601 ({@code PT10S}). */
  private static Duration parseDuration(String field, String text) {
    String trimmed = text.trim();
    Matcher m = DURATION.matcher(trimmed);
    try {
      if (m.matches()) {
        double amount = Double.parseDouble(m.group(1));
        double unitMillis =
            switch (m.group(2)) {
              case "ms" -> 1;
              case "s" -> 1_000;
              case "m" -> 60_000;
              default -> 3_600_000;
            };
        return Duration.ofNanos(Math.round(amount * unitMillis * 1e6));
      }
      return Duration.parse(trimmed);
    } catch (RuntimeException e) {
      throw new InvalidPolicyException(
          field,
          field + " must be a duration such as 250ms, 10s, 15m or PT10S, got '" + text + "'");
    }
  }

  private static String millis(Duration d) {
    return d.toMillis() + "ms";
  }

  /** Checks that {@code node} is a mapping of only the keys {@code allowed} (null: any keys). */
  private static void onlyKeys(JsonNode node, String prefix, @Nullable Set<String> allowed) {
    if (!node.isObject()) {
      String field = prefix.isEmpty() ? "(document)" : prefix.substring(0, prefix.length() - 1);
      throw new InvalidPolicyException(field, field + " must be a mapping");
    }
    if (allowed == null) {
      return;
    }
    for (Iterator<String> it = node.fieldNames(); it.hasNext(); ) {
      String key = it.next();
      if (!allowed.contains(key)) {
        throw new InvalidPolicyException(
            prefix + key,
            "unknown key '"
                + prefix
                + key
                + "'; allowed here: "
                + String.join(", ", allowed.stream().sorted().toList()));
      }
    }
  }

  private static JsonNode required(JsonNode node, String key) {
    JsonNode value = node.get(key);
    if (value == null || !value.isObject() || value.isEmpty()) {
      throw new InvalidPolicyException(key, key + " is required and must be a non-empty mapping");
    }
    return value;
  }

  private static String text(JsonNode node, String key) {
    JsonNode value = node.get(key);
    if (value == null || !value.isTextual()) {
      throw new InvalidPolicyException(key, key + " is required and must be a string");
    }
    return value.asText();
  }

  private static double number(JsonNode node, String field, String key) {
    JsonNode value = node.get(key);
    if (value == null || !value.isNumber()) {
      throw new InvalidPolicyException(field, field + " must be a number, got " + kind(value));
    }
    return value.asDouble();
  }

  private static long integer(JsonNode node, String field, String key) {
    JsonNode value = node.get(key);
    if (value == null || !value.isIntegralNumber() || !value.canConvertToLong()) {
      throw new InvalidPolicyException(
          field, field + " must be a whole number, got " + kind(value));
    }
    return value.asLong();
  }

  private static boolean bool(JsonNode node, String field, String key, boolean absent) {
    JsonNode value = node.get(key);
    if (value == null) {
      return absent;
    }
    if (!value.isBoolean()) {
      throw new InvalidPolicyException(field, field + " must be true or false, got " + kind(value));
    }
    return value.asBoolean();
  }

  /** A value as an error message shows it: its text and its YAML type. */
  private static String kind(JsonNode value) {
    if (value == null) {
      return "nothing";
    }
    String type =
        value.isTextual()
            ? "a string"
            : value.isArray()
                ? "a list"
                : value.isObject()
                    ? "a mapping"
                    : value.isBoolean()
                        ? "a boolean"
                        : value.isNull()
                            ? "null"
                            : value.isIntegralNumber()
                                ? "an integer"
                                : value.isNumber() ? "a number" : value.getNodeType().toString();
    String shown = value.toString();
    return (shown.length() > 60 ? shown.substring(0, 60) + "…" : shown) + " (" + type + ")";
  }

  private static Duration duration(JsonNode node, String key) {
    return duration(node, key, key);
  }

  private static Duration duration(JsonNode node, String key, String field) {
    JsonNode value = node.get(key);
    if (value == null || !(value.isTextual() || value.isNumber())) {
      throw new InvalidPolicyException(field, field + " must be a duration such as 10s");
    }
    if (value.isNumber()) {
      return Duration.ofNanos(Math.round(value.asDouble() * 1e9));
    }
    return parseDuration(field, value.asText());
  }
}
