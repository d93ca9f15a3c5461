package io.backpressure.client;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.backpressure.core.Gate;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * Which gate a call goes to, chosen by the model its request names: one gate per model or
 * deployment, each with its own caps (a provider's per-model limits, an Azure deployment's quota).
 *
 * <p>A route's pattern is a model name ({@code gpt-4o}: that model only) or a prefix ending in
 * {@code *} ({@code gpt-4o-mini*}: every model whose name starts so). An exact name beats every
 * prefix; among prefixes the longest wins; a model no route matches goes to the default gate, and
 * with no default it is refused with a message listing the routes. Matching ignores nothing: model
 * names are compared as sent.
 *
 * <p>The table usually comes from configuration, with a factory that builds (or looks up) the gate
 * of each target once:
 *
 * <pre>{@code
 * routes:
 *   gpt-4o-mini*: openai/gpt-4o-mini
 *   gpt-4o*: openai/gpt-4o
 * default: openai/other
 * }</pre>
 *
 * Immutable and thread-safe.
 */
public final class ModelRoutes {

  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

  private final Map<String, Gate> exact;
  private final List<Map.Entry<String, Gate>> prefixes;
  private final @Nullable Gate fallback;

  private ModelRoutes(Builder builder) {
    this.exact = Map.copyOf(builder.exact);
    List<Map.Entry<String, Gate>> sorted = new ArrayList<>(builder.prefixes.entrySet());
    sorted.sort(
        Comparator.comparingInt((Map.Entry<String, Gate> e) -> e.getKey().length()).reversed());
    this.prefixes = List.copyOf(sorted);
    this.fallback = builder.fallback;
  }

  /** Every model to {@code gate}. */
  public static ModelRoutes single(Gate gate) {
    return builder().otherwise(gate).build();
  }

  public static Builder builder() {
    return new Builder();
  }

  /**
   * Routes from a table of pattern → target name, with {@code gates} giving the gate of each target
   * (called once per distinct target). The key {@code default} names the default target.
   */
  public static ModelRoutes fromTable(Map<String, String> table, Function<String, Gate> gates) {
    Objects.requireNonNull(gates, "gates");
    Map<String, Gate> byTarget = new LinkedHashMap<>();
    Builder builder = builder();
    table.forEach(
        (pattern, target) -> {
          if (target == null || target.isBlank()) {
            throw new IllegalArgumentException(
                "routes." + pattern + " must name a target, got '" + target + "'");
          }
          Gate gate =
              byTarget.computeIfAbsent(
                  target,
                  t ->
                      Objects.requireNonNull(
                          gates.apply(t), "routes." + pattern + ": no gate for target " + t));
          if ("default".equals(pattern)) {
            builder.otherwise(gate);
          } else {
            builder.route(pattern, gate);
          }
        });
    return builder.build();
  }

  /**
   * Routes from YAML: a mapping {@code routes} of pattern → target and an optional {@code default}
   * target, as in the class comment.
   *
   * @throws IllegalArgumentException naming the key when the document is malformed
   */
  public static ModelRoutes fromYaml(String yaml, Function<String, Gate> gates) {
    JsonNode root;
    try {
      root = YAML.readTree(yaml);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("malformed routes YAML: " + e.getOriginalMessage(), e);
    }
    if (root == null || !root.isObject()) {
      throw new IllegalArgumentException(
          "routes YAML must be a mapping with 'routes' and optional 'default'");
    }
    Map<String, String> table = new LinkedHashMap<>();
    for (Iterator<String> names = root.fieldNames(); names.hasNext(); ) {
      String name = names.next();
      if (!name.equals("routes") && !name.equals("default")) {
        throw new IllegalArgumentException("unknown key '" + name + "'; allowed: routes, default");
      }
    }
    JsonNode routes = root.path("routes");
    if (!routes.isMissingNode() && !routes.isObject()) {
      throw new IllegalArgumentException("routes must be a mapping of model pattern to target");
    }
    for (Map.Entry<String, JsonNode> route : routes.properties()) {
      table.put(route.getKey(), route.getValue().isTextual() ? route.getValue().asText() : null);
    }
    if (root.has("default")) {
      table.put("default", root.get("default").isTextual() ? root.get("default").asText() : null);
    }
    return fromTable(table, gates);
  }

  /** The gate for {@code model}, or empty when no route matches and there is no default. */
  public Optional<Gate> gateFor(String model) {
    Gate gate = exact.get(model);
    if (gate != null) {
      return Optional.of(gate);
    }
    for (Map.Entry<String, Gate> prefix : prefixes) {
      if (model.startsWith(prefix.getKey())) {
        return Optional.of(prefix.getValue());
      }
    }
    return Optional.ofNullable(fallback);
  }

  @Override
  public String toString() {
    StringBuilder text = new StringBuilder("{");
    exact.forEach(
        (model, gate) -> text.append(model).append(" -> ").append(gate.target()).append(", "));
    prefixes.forEach(
        e -> text.append(e.getKey()).append("* -> ").append(e.getValue().target()).append(", "));
    text.append("default -> ").append(fallback == null ? "none" : fallback.target()).append('}');
    return text.toString();
  }

  /** Builds routes. Not thread-safe. */
  public static final class Builder {
    private final Map<String, Gate> exact = new LinkedHashMap<>();
    private final Map<String, Gate> prefixes = new LinkedHashMap<>();
    private @Nullable Gate fallback;

    private Builder() {}

    /**
     * Sends calls for {@code pattern} (a model name, or a prefix ending in {@code *}) to {@code
     * gate}.
     *
     * @throws IllegalArgumentException if the pattern is blank or already routed
     */
    public Builder route(String pattern, Gate gate) {
      Objects.requireNonNull(gate, "gate");
      if (pattern == null || pattern.isBlank() || pattern.equals("*")) {
        throw new IllegalArgumentException(
            "route pattern must be a model name or a prefix ending in '*', got '" + pattern + "'");
      }
      boolean prefix = pattern.endsWith("*");
      Map<String, Gate> table = prefix ? prefixes : exact;
      String key = prefix ? pattern.substring(0, pattern.length() - 1) : pattern;
      if (table.putIfAbsent(key, gate) != null) {
        throw new IllegalArgumentException("route pattern '" + pattern + "' is routed twice");
      }
      return this;
    }

    /** Sends calls that no route matches to {@code gate}. */
    public Builder otherwise(Gate gate) {
      this.fallback = Objects.requireNonNull(gate, "gate");
      return this;
    }

    public ModelRoutes build() {
      if (exact.isEmpty() && prefixes.isEmpty() && fallback == null) {
        throw new IllegalArgumentException("routes need at least one route or a default gate");
      }
      return new ModelRoutes(this);
    }
  }
}
