package io.backpressure.core;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLGenerator;
import java.time.Duration;
import java.util.Iterator;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads and writes the policy YAML format. Unknown keys are errors that name them, so a typo never
 * silently falls back to a default.
 *
 * <pre>{@code
 * target: openai/gpt-4o
 * dimensions:                      # each: per_second or per_minute, optional burst
 *   requests: {per_minute: 3600, burst: 60}
 *   tokens: {per_minute: 720000}   # burst defaults to one second of cap
 * priorities: {P1: 0.5, P2: 0.3, P3: {weight: 0.2, max_wait: 30s}}   # highest first
 * priority_mode: shared            # or strict
 * tenants: {default_weight: 1.0, weights: {acme: 2.0}}
 * reservation: {enabled: false, default_max_tokens: 1024}
 * idle_ttl: 10s
 * safe_window: 1s                  # optional
 * share_horizon: 1s
 * grant_ttl: 15m
 * }</pre>
 */
final class PolicyYaml {
  private static final ObjectMapper YAML =
      new ObjectMapper(new YAMLFactory().disable(YAMLGenerator.Feature.WRITE_DOC_START_MARKER));
  private static final Pattern DURATION = Pattern.compile("(\\d+(?:\\.\\d+)?)\\s*(ms|s|m|h)");

  private PolicyYaml() {}

  static Policy parse(String text) {
    JsonNode root;
    try {
      root = YAML.readTree(text);
    } catch (JsonProcessingException e) {
      throw new InvalidPolicyException("(document)", "malformed policy YAML: " + e.getOriginalMessage(), e);
    }
    if (root == null || !root.isObject()) {
      throw new InvalidPolicyException("(document)", "a policy must be a YAML mapping");
    }
    onlyKeys(root, "", Set.of("target", "dimensions", "priorities", "tenants", "reservation",
        "idle_ttl", "safe_window", "share_horizon", "grant_ttl", "priority_mode"));
    Policy.Builder builder = Policy.builder(text(root, "target"));

    JsonNode dims = required(root, "dimensions");
    for (Iterator<Map.Entry<String, JsonNode>> it = dims.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> entry = it.next();
      String path = "dimensions." + entry.getKey();
      JsonNode dim = entry.getValue();
      if (!dim.isObject()) {
        throw new InvalidPolicyException(path, path + " must be a mapping with per_second or per_minute");
      }
      onlyKeys(dim, path + ".", Set.of("per_second", "per_minute", "burst"));
      boolean perSecond = dim.has("per_second");
      boolean perMinute = dim.has("per_minute");
      if (perSecond == perMinute) {
        throw new InvalidPolicyException(path, path + " needs exactly one of per_second or per_minute");
      }
      double cap = perSecond
          ? number(dim, path + ".per_second", "per_second")
          : number(dim, path + ".per_minute", "per_minute") / 60.0;
      double burst = dim.has("burst") ? number(dim, path + ".burst", "burst") : cap;
      builder.dimension(entry.getKey(), cap, burst);
    }

    JsonNode classes = required(root, "priorities");
    for (Iterator<Map.Entry<String, JsonNode>> it = classes.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> entry = it.next();
      String path = "priorities." + entry.getKey();
      if (entry.getValue().isObject()) {
        JsonNode longForm = entry.getValue();
        onlyKeys(longForm, path + ".", Set.of("weight", "max_wait"));
        Duration maxWait = longForm.has("max_wait") && !longForm.get("max_wait").isNull()
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
      builder.priorityMode(switch (modeName) {
        case "shared" -> PriorityMode.SHARED;
        case "strict" -> PriorityMode.STRICT;
        default -> throw new InvalidPolicyException("priority_mode",
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
        for (Iterator<Map.Entry<String, JsonNode>> it = weights.fields(); it.hasNext(); ) {
          Map.Entry<String, JsonNode> entry = it.next();
          builder.tenantWeight(entry.getKey(),
              number(weights, "tenants.weights." + entry.getKey(), entry.getKey()));
        }
      }
    }

    JsonNode reservation = root.get("reservation");
    if (reservation != null) {
      onlyKeys(reservation, "reservation.", Set.of("enabled", "default_max_tokens"));
      boolean enabled = reservation.path("enabled").asBoolean(false);
      long maxTokens = reservation.has("default_max_tokens")
          ? (long) number(reservation, "reservation.default_max_tokens", "default_max_tokens")
          : 1024;
      builder.reservation(enabled, maxTokens);
    }
    if (root.has("idle_ttl")) {
      builder.idleTtl(duration(root, "idle_ttl"));
    }
    if (root.has("safe_window") && !root.get("safe_window").isNull()) {
      builder.safeWindow(duration(root, "safe_window"));
    }
    if (root.has("share_horizon")) {
      builder.shareHorizon(duration(root, "share_horizon"));
    }
    if (root.has("grant_ttl")) {
      builder.grantTtl(duration(root, "grant_ttl"));
    }
    return builder.build();
  }

  static String render(Policy policy) {
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
    try {
      return YAML.writeValueAsString(root);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Parses {@code 250ms}, {@code 10s}, {@code 1.5m}, {@code 2h} or ISO-8601 ({@code PT10S}). */
  static Duration parseDuration(String field, String text) {
    String trimmed = text.trim();
    Matcher m = DURATION.matcher(trimmed);
    try {
      if (m.matches()) {
        double amount = Double.parseDouble(m.group(1));
        double unitMillis = switch (m.group(2)) {
          case "ms" -> 1;
          case "s" -> 1_000;
          case "m" -> 60_000;
          default -> 3_600_000;
        };
        return Duration.ofNanos(Math.round(amount * unitMillis * 1e6));
      }
      return Duration.parse(trimmed);
    } catch (RuntimeException e) {
      throw new InvalidPolicyException(field,
          field + " must be a duration such as 250ms, 10s, 15m or PT10S, got '" + text + "'");
    }
  }

  private static String millis(Duration d) {
    return d.toMillis() + "ms";
  }

  private static void onlyKeys(JsonNode node, String prefix, Set<String> allowed) {
    if (!node.isObject()) {
      String field = prefix.isEmpty() ? "(document)" : prefix.substring(0, prefix.length() - 1);
      throw new InvalidPolicyException(field, field + " must be a mapping");
    }
    for (Iterator<String> it = node.fieldNames(); it.hasNext(); ) {
      String key = it.next();
      if (!allowed.contains(key)) {
        throw new InvalidPolicyException(prefix + key,
            "unknown key '" + prefix + key + "'; allowed here: " + String.join(", ", allowed.stream().sorted().toList()));
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
      throw new InvalidPolicyException(field, field + " must be a number, got " + value);
    }
    return value.asDouble();
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
