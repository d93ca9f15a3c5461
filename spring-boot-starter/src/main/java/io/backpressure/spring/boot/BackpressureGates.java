package io.backpressure.spring.boot;

import io.backpressure.core.Gate;
import io.backpressure.core.InMemoryGate;
import io.backpressure.core.Policy;
import io.backpressure.core.Ticker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;

/**
 * Every configured target's gate, built once at start-up from {@code backpressure.*}: the state (an
 * {@link InMemoryGate}, or a {@code ResilientRedisGate} with the configured fail mode), and around
 * it a {@code MeteredGate} when the application has a {@code MeterRegistry}. Also exposed one bean
 * per target ({@code @Qualifier("<key>") Gate}); the default target's is the primary {@code Gate}.
 * Closing it closes the Redis connections and removes the meters.
 *
 * <p>Thread-safe: the map is fixed after construction and every gate is thread-safe.
 */
public final class BackpressureGates implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(BackpressureGates.class);

  private final Map<String, Gate> gates;
  private final String defaultKey;
  private final List<AutoCloseable> resources;

  private BackpressureGates(
      Map<String, Gate> gates, String defaultKey, List<AutoCloseable> resources) {
    this.gates = Collections.unmodifiableMap(gates);
    this.defaultKey = defaultKey;
    this.resources = resources;
  }

  /**
   * Builds the gates; a bad property throws {@link InvalidConfigurationPropertyValueException}
   * naming it, and whatever was opened before it is closed again.
   *
   * @param metering wraps each gate in meters, or {@code null} for none
   * @param clock the clock of in-memory gates (Redis gates take the server's time)
   */
  static BackpressureGates build(
      BackpressureProperties properties, GateMetering metering, Ticker clock) {
    checkCommon(properties);
    String defaultKey = defaultKey(properties);
    boolean redis =
        properties.getRedis().getUrl() != null
            || !properties.getRedis().getClusterNodes().isEmpty();
    if (redis && !RedisStates.onClassPath()) {
      throw new InvalidConfigurationPropertyValueException(
          properties.getRedis().getUrl() != null
              ? "backpressure.redis.url"
              : "backpressure.redis.cluster-nodes",
          "(not shown)",
          "Redis state needs io.backpressure:backpressure-redis on the class path");
    }
    Map<String, Gate> gates = new LinkedHashMap<>();
    List<AutoCloseable> resources = new ArrayList<>();
    try {
      properties
          .getTargets()
          .forEach(
              (key, target) -> {
                Policy policy = TargetPolicies.policy(key, target);
                Gate gate =
                    redis
                        ? RedisStates.gate(properties, policy, metering, resources::add)
                        : inMemory(policy, metering, clock);
                if (gate instanceof AutoCloseable closeable && !resources.contains(closeable)) {
                  resources.add(closeable);
                }
                gates.put(key, gate);
              });
    } catch (RuntimeException e) {
      closeAll(resources);
      throw e;
    }
    return new BackpressureGates(gates, defaultKey, resources);
  }

  private static Gate inMemory(Policy policy, GateMetering metering, Ticker clock) {
    InMemoryGate memory = InMemoryGate.create(policy, clock);
    LOG.info(
        "target {}: gating in memory by the configured policy: {}",
        policy.target(),
        TargetPolicies.summary(policy));
    return metering == null ? memory : metering.meter(memory, memory::policy, null);
  }

  private static void checkCommon(BackpressureProperties properties) {
    positive("backpressure.state-timeout", properties.getStateTimeout(), true);
    positive("backpressure.activity-max-wait", properties.getActivityMaxWait(), false);
    Duration maxWait = properties.getMaxWait();
    if (maxWait == null || maxWait.isNegative() || maxWait.compareTo(Duration.ofHours(1)) > 0) {
      throw new InvalidConfigurationPropertyValueException(
          "backpressure.max-wait", maxWait, "must be in [0, 1h] (0: throw the deferral at once)");
    }
    positive(
        "backpressure.redis.command-timeout", properties.getRedis().getCommandTimeout(), false);
    positive(
        "backpressure.redis.connect-timeout", properties.getRedis().getConnectTimeout(), false);
    positive("backpressure.temporal.max-wait", properties.getTemporal().getMaxWait(), false);
    if (properties.getRedis().getUrl() != null
        && !properties.getRedis().getClusterNodes().isEmpty()) {
      throw new InvalidConfigurationPropertyValueException(
          "backpressure.redis.cluster-nodes",
          properties.getRedis().getClusterNodes(),
          "set either backpressure.redis.url or cluster-nodes, not both");
    }
    if (properties.getDefaultTenant() != null && properties.getDefaultPriority() == null) {
      throw new InvalidConfigurationPropertyValueException(
          "backpressure.default-priority", null, "must be set when backpressure.default-tenant is");
    }
  }

  private static void positive(String property, Duration value, boolean optional) {
    if (value == null && optional) {
      return;
    }
    if (value == null || value.isNegative() || value.isZero()) {
      throw new InvalidConfigurationPropertyValueException(
          property, value, "must be a positive duration");
    }
  }

  /** The key of the default target: the one named, else the only one. */
  static String defaultKey(BackpressureProperties properties) {
    Map<String, BackpressureProperties.Target> targets = properties.getTargets();
    String named = properties.getDefaultTarget();
    if (named != null) {
      if (!targets.containsKey(named)) {
        throw new InvalidConfigurationPropertyValueException(
            "backpressure.default-target",
            named,
            "must be one of the keys of backpressure.targets: " + targets.keySet());
      }
      return named;
    }
    if (targets.size() == 1) {
      return targets.keySet().iterator().next();
    }
    throw new InvalidConfigurationPropertyValueException(
        "backpressure.default-target",
        null,
        "name the target the integrations use; configured: " + targets.keySet());
  }

  /** The gate of target {@code key} (a key of {@code backpressure.targets}). */
  public Gate gate(String key) {
    Gate gate = gates.get(Objects.requireNonNull(key, "key"));
    if (gate == null) {
      throw new IllegalArgumentException(
          "no target '" + key + "' in backpressure.targets; configured: " + gates.keySet());
    }
    return gate;
  }

  /** The default target's gate. */
  public Gate defaultGate() {
    return gates.get(defaultKey);
  }

  /** The key of the default target. */
  public String defaultKey() {
    return defaultKey;
  }

  /** Every gate by key, in configuration order. */
  public Map<String, Gate> all() {
    return gates;
  }

  @Override
  public void close() {
    closeAll(resources);
  }

  private static void closeAll(List<AutoCloseable> resources) {
    for (int i = resources.size() - 1; i >= 0; i--) {
      try {
        resources.get(i).close();
      } catch (Exception e) {
        LOG.warn("closing {} failed", resources.get(i), e);
      }
    }
  }
}
