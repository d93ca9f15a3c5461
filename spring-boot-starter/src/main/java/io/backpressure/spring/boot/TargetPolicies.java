package io.backpressure.spring.boot;

import io.backpressure.core.Dimension;
import io.backpressure.core.InvalidPolicyException;
import io.backpressure.core.Policy;
import io.backpressure.policy.yaml.PolicyYaml;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;

/**
 * Builds each target's {@link Policy} from its {@code backpressure.targets.<key>.*} properties with
 * the core's own checks, and turns a check that fails into Spring Boot's {@link
 * InvalidConfigurationPropertyValueException} naming the property, so start-up fails with it.
 */
final class TargetPolicies {
  private static final String PREFIX = "backpressure.targets.";

  private TargetPolicies() {}

  /** The policy of target {@code key}. */
  static Policy policy(String key, BackpressureProperties.Target target) {
    String name = target.getName() == null ? key : target.getName();
    if (target.getPolicyFile() != null) {
      return fromFile(key, name, target);
    }
    String prefix = PREFIX + key + ".";
    // The integrations debit one request and the estimated tokens of every call, so both are
    // capped.
    if (target.getRequestsPerMinute() == null) {
      throw new InvalidConfigurationPropertyValueException(
          prefix + "requests-per-minute",
          null,
          "set the provider's requests per minute (and tokens-per-minute), or a policy-file");
    }
    if (target.getTokensPerMinute() == null) {
      throw new InvalidConfigurationPropertyValueException(
          prefix + "tokens-per-minute",
          null,
          "set the provider's tokens per minute (and requests-per-minute), or a policy-file");
    }
    if (target.getPriorities().isEmpty()) {
      throw new InvalidConfigurationPropertyValueException(
          prefix + "priorities",
          null,
          "name at least one priority class with its weight, e.g. " + prefix + "priorities.P1=1");
    }
    perMinute(prefix + "requests-per-minute", target.getRequestsPerMinute());
    perMinute(prefix + "tokens-per-minute", target.getTokensPerMinute());
    try {
      double requestsPerSecond = target.getRequestsPerMinute() / 60.0;
      double tokensPerSecond = target.getTokensPerMinute() / 60.0;
      Policy.Builder builder =
          Policy.builder(name)
              .dimension(
                  Dimension.REQUESTS,
                  requestsPerSecond,
                  target.getRequestsBurst() == null ? requestsPerSecond : target.getRequestsBurst())
              .dimension(
                  Dimension.TOKENS,
                  tokensPerSecond,
                  target.getTokensBurst() == null ? tokensPerSecond : target.getTokensBurst());
      target.getPriorities().forEach(builder::priority);
      target.getTenantWeights().forEach(builder::tenantWeight);
      if (target.getDefaultTenantWeight() != null) {
        builder.defaultTenantWeight(target.getDefaultTenantWeight());
      }
      // Inline caps are per minute, as providers publish them; the provider counts them in its
      // own period, a minute unless provider-period says otherwise.
      builder.providerPeriod(providerPeriod(prefix, target.getProviderPeriod()));
      if (target.getSafeWindow() != null) {
        builder.safeWindow(target.getSafeWindow().isZero() ? null : target.getSafeWindow());
      }
      if (target.getSendMargin() != null) {
        builder.sendMargin(target.getSendMargin());
      }
      builder.reservation(
          target.isReservation(),
          target.getDefaultMaxTokens() == null ? 1024 : target.getDefaultMaxTokens());
      return builder.build();
    } catch (InvalidPolicyException e) {
      throw new InvalidConfigurationPropertyValueException(
          prefix + property(e.field()), value(target, e.field()), e.getMessage());
    }
  }

  /**
   * The policy in one line, for the start-up log: caps per second with bursts, class weights,
   * tenant weights and the safe window.
   */
  static String summary(Policy policy) {
    StringBuilder out = new StringBuilder();
    for (Dimension d : policy.dimensions()) {
      out.append(d.name())
          .append(' ')
          .append(d.capPerSecond())
          .append("/s (burst ")
          .append(d.burst())
          .append("), ");
    }
    out.append("classes ");
    policy
        .priorities()
        .forEach(p -> out.append(p.name()).append('=').append(p.weight()).append(' '));
    out.append("tenants ")
        .append(policy.tenantWeights())
        .append(" (others ")
        .append(policy.defaultTenantWeight())
        .append("), safe window ")
        .append(policy.safeWindow() == null ? "none" : policy.safeWindow());
    return out.toString();
  }

  /** The provider period of inline caps: as given, in (0, 1h], else a minute. */
  private static Duration providerPeriod(String prefix, Duration period) {
    if (period == null) {
      return Duration.ofMinutes(1);
    }
    if (period.isNegative() || period.isZero() || period.compareTo(Duration.ofHours(1)) > 0) {
      throw new InvalidConfigurationPropertyValueException(
          prefix + "provider-period", period, "must be a duration in (0, 1h]");
    }
    return period;
  }

  /** Per-minute caps are checked here, in the unit the property has; the core checks per second. */
  private static void perMinute(String property, Double value) {
    if (value != null && !(value > 0 && Double.isFinite(value))) {
      throw new InvalidConfigurationPropertyValueException(
          property, value, "must be a positive number per minute");
    }
  }

  private static Policy fromFile(String key, String name, BackpressureProperties.Target target) {
    String property = PREFIX + key + ".policy-file";
    if (target.getRequestsPerMinute() != null
        || target.getTokensPerMinute() != null
        || target.getRequestsBurst() != null
        || target.getTokensBurst() != null
        || !target.getPriorities().isEmpty()
        || !target.getTenantWeights().isEmpty()) {
      throw new InvalidConfigurationPropertyValueException(
          property,
          target.getPolicyFile().getDescription(),
          "a policy file and inline caps, classes or weights exclude each other; keep one");
    }
    if (target.getProviderPeriod() != null) {
      throw new InvalidConfigurationPropertyValueException(
          PREFIX + key + ".provider-period",
          target.getProviderPeriod(),
          "a policy file states its own period (safe_window, feedback.period); set it there");
    }
    if (target.getSendMargin() != null && !target.getSendMargin().isZero()) {
      throw new InvalidConfigurationPropertyValueException(
          PREFIX + key + ".send-margin",
          target.getSendMargin(),
          "a policy file has its own send_margin; set it there");
    }
    String yaml;
    try (InputStream in = target.getPolicyFile().getInputStream()) {
      yaml = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new InvalidConfigurationPropertyValueException(
          property, target.getPolicyFile().getDescription(), "cannot be read: " + e.getMessage());
    }
    Policy policy;
    try {
      policy = PolicyYaml.parse(yaml);
    } catch (InvalidPolicyException e) {
      throw new InvalidConfigurationPropertyValueException(
          property,
          target.getPolicyFile().getDescription(),
          "field " + e.field() + ": " + e.getMessage());
    }
    if (target.getName() != null && !policy.target().equals(name)) {
      throw new InvalidConfigurationPropertyValueException(
          property,
          target.getPolicyFile().getDescription(),
          "the file is for target '" + policy.target() + "', not '" + name + "'");
    }
    return policy;
  }

  /** The property (under the target's prefix) that a policy field comes from. */
  private static String property(String field) {
    if (field.startsWith("dimensions.requests")) {
      return field.endsWith(".burst") ? "requests-burst" : "requests-per-minute";
    }
    if (field.startsWith("dimensions.tokens")) {
      return field.endsWith(".burst") ? "tokens-burst" : "tokens-per-minute";
    }
    if (field.startsWith("priorities")) {
      return field;
    }
    if (field.startsWith("tenants.weights")) {
      return "tenant-weights" + field.substring("tenants.weights".length());
    }
    return switch (field) {
      case "tenants.default_weight" -> "default-tenant-weight";
      case "reservation.default_max_tokens" -> "default-max-tokens";
      case "safe_window" -> "safe-window";
      case "target" -> "name";
      default -> field.replace('_', '-');
    };
  }

  private static Object value(BackpressureProperties.Target target, String field) {
    if (field.startsWith("dimensions.requests")) {
      return field.endsWith(".burst") ? target.getRequestsBurst() : target.getRequestsPerMinute();
    }
    if (field.startsWith("dimensions.tokens")) {
      return field.endsWith(".burst") ? target.getTokensBurst() : target.getTokensPerMinute();
    }
    if (field.startsWith("priorities.")) {
      return target.getPriorities().get(field.substring("priorities.".length()));
    }
    if (field.startsWith("tenants.weights.")) {
      Map<String, Double> weights = target.getTenantWeights();
      return weights.get(field.substring("tenants.weights.".length()));
    }
    return switch (field) {
      case "tenants.default_weight" -> target.getDefaultTenantWeight();
      case "reservation.default_max_tokens" -> target.getDefaultMaxTokens();
      case "safe_window" -> target.getSafeWindow();
      case "send_margin" -> target.getSendMargin();
      case "target" -> target.getName();
      default -> null;
    };
  }
}
