package io.backpressure.admin;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.backpressure.core.Dimension;
import io.backpressure.core.GateLevels;
import io.backpressure.core.Policy;
import io.backpressure.core.PriorityClass;
import io.backpressure.policy.yaml.PolicyYaml;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;

/** A policy and its live levels, as a text report and as JSON in the policy file's own shape. */
final class PolicyView {
  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

  private PolicyView() {}

  /** The policy as JSON with the keys of the policy file ({@code docs/policy.yaml}). */
  static ObjectNode json(Policy policy) {
    try {
      return (ObjectNode) YAML.readTree(PolicyYaml.render(policy));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * The levels as JSON: {@code global} and {@code utilization} per dimension, {@code classes} per
   * class and dimension, {@code active_queues} per class, {@code admitted_per_second} per class and
   * dimension, {@code queue_age_seconds} per class (the wait of the oldest call still waiting).
   * With {@code fair} (the target's gates decide with the fair-queuing rule) {@code global} is the
   * cap's level and {@code classes} is null: that rule keeps no class buckets.
   */
  static ObjectNode json(Policy policy, GateLevels levels, boolean fair) {
    ObjectNode node = Output.JSON.createObjectNode();
    ObjectNode global = node.putObject("global");
    ObjectNode utilization = node.putObject("utilization");
    for (Dimension d : policy.dimensions()) {
      Double level = levels.global().get(d.name());
      if (level != null) {
        global.put(d.name(), level);
        utilization.put(d.name(), 1 - level / d.burst());
      }
    }
    if (fair) {
      node.putNull("classes");
    } else {
      putPerClass(node.putObject("classes"), levels.classes());
    }
    ObjectNode active = node.putObject("active_queues");
    levels.activeQueues().forEach(active::put);
    putPerClass(node.putObject("admitted_per_second"), levels.admittedRates());
    ObjectNode ages = node.putObject("queue_age_seconds");
    levels.queueAges().forEach((k, age) -> ages.put(k, age.toNanos() / 1e9));
    return node;
  }

  /** Puts one object per class into {@code node}: the class's values by dimension, by name. */
  private static void putPerClass(ObjectNode node, Map<String, Map<String, Double>> byClass) {
    byClass.forEach(
        (k, byDim) -> {
          ObjectNode klass = node.putObject(k);
          new TreeMap<>(byDim).forEach(klass::put);
        });
  }

  /**
   * The text report of {@code admin show}; with {@code fair} (the target's gates decide with the
   * fair-queuing rule) the class levels read {@code -}, since that rule keeps no class buckets.
   */
  static String text(Policy policy, String version, @Nullable GateLevels levels, boolean fair) {
    StringBuilder out = new StringBuilder();
    out.append("target ")
        .append(policy.target())
        .append("   policy version ")
        .append(version)
        .append("\n\n");
    out.append(String.format("%-16s %14s %14s %14s", "dimension", "cap/s", "cap/min", "burst"));
    out.append(levels == null ? "\n" : String.format(" %14s %6s%n", "level", "used"));
    for (Dimension d : policy.dimensions()) {
      out.append(
          String.format(
              "%-16s %14s %14s %14s",
              d.name(),
              Output.number(d.capPerSecond()),
              Output.number(d.capPerSecond() * 60),
              Output.number(d.burst())));
      Double level = levels == null ? null : levels.global().get(d.name());
      if (level != null) {
        out.append(
            String.format(" %14s %5.0f%%", Output.number(level), 100 * (1 - level / d.burst())));
      }
      out.append('\n');
    }
    out.append('\n').append(String.format("%-16s %8s %14s", "class", "weight", "active queues"));
    if (levels != null) {
      for (Dimension d : policy.dimensions()) {
        out.append(String.format(" %14s", d.name() + " level"));
      }
      for (Dimension d : policy.dimensions()) {
        out.append(String.format(" %14s", d.name() + "/s"));
      }
      out.append(String.format(" %14s", "oldest wait"));
    }
    out.append('\n');
    for (PriorityClass k : policy.priorities()) {
      out.append(String.format("%-16s %8s", k.name(), Output.number(k.weight())));
      if (levels != null) {
        Integer active = levels.activeQueues().get(k.name());
        out.append(String.format(" %14s", active == null ? "-" : active));
        Map<String, Double> byDim = fair ? null : levels.classes().get(k.name());
        for (Dimension d : policy.dimensions()) {
          Double level = byDim == null ? null : byDim.get(d.name());
          out.append(String.format(" %14s", level == null ? "-" : Output.number(level)));
        }
        Map<String, Double> rates = levels.admittedRates().get(k.name());
        for (Dimension d : policy.dimensions()) {
          Double rate = rates == null ? null : rates.get(d.name());
          out.append(String.format(" %14s", rate == null ? "-" : Output.number(rate)));
        }
        java.time.Duration age = levels.queueAges().get(k.name());
        out.append(
            String.format(" %14s", age == null ? "-" : Output.number(age.toNanos() / 1e9) + " s"));
      } else {
        out.append(String.format(" %14s", 0));
      }
      out.append('\n');
    }
    out.append('\n')
        .append("tenants          default weight ")
        .append(Output.number(policy.defaultTenantWeight()));
    new TreeMap<>(policy.tenantWeights())
        .forEach((t, w) -> out.append(", ").append(t).append(' ').append(Output.number(w)));
    out.append('\n');
    out.append("reservation      ")
        .append(policy.reservation() ? "on" : "off")
        .append(" (default max_tokens ")
        .append(policy.defaultMaxTokens())
        .append(")\n");
    out.append("timing           idle_ttl ")
        .append(duration(policy.idleTtl()))
        .append(", safe_window ")
        .append(policy.safeWindow() == null ? "off" : duration(policy.safeWindow()))
        .append(", share_horizon ")
        .append(duration(policy.shareHorizon()))
        .append(", grant_ttl ")
        .append(duration(policy.grantTtl()))
        .append('\n');
    out.append(
        levels == null
            ? "levels           all buckets full: no admission since the policy was written\n"
            : "levels           as of the target's last admission or release\n");
    if (fair) {
      out.append(
          "rule             fair queuing: the level is the cap's, no class buckets (class"
              + " levels -)\n");
    }
    return out.toString();
  }

  /** {@code 250ms}, {@code 10s}, {@code 15m}: the policy file's duration form. */
  static String duration(Duration d) {
    long ms = d.toMillis();
    if (ms % 60_000 == 0 && ms >= 60_000) {
      return ms / 60_000 + "m";
    }
    if (ms % 1_000 == 0) {
      return ms / 1_000 + "s";
    }
    return ms + "ms";
  }
}
