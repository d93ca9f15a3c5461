package io.backpressure.spring.boot;

import io.backpressure.core.AuditEntry;
import io.backpressure.core.Gate;
import io.backpressure.core.Limits;
import io.backpressure.core.Policy;
import io.backpressure.core.QuotaAdmin;
import io.backpressure.core.QuotaHolder;
import io.backpressure.core.QuotaUse;
import io.backpressure.redis.RedisGateConfig;
import io.backpressure.redis.RedisPolicyStore;
import io.backpressure.redis.ResilientRedisGate;
import io.lettuce.core.RedisException;
import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;

/**
 * Connects each target's gate to Redis. Every reference to the redis module lives here, and this
 * class is loaded only when {@code backpressure.redis.*} names a server, so applications with
 * in-memory state need not have that module.
 */
final class RedisStates {
  private static final Logger LOG = LoggerFactory.getLogger(RedisStates.class);

  /**
   * How long start-up waits for the first connection to Redis (a first connection includes the
   * client's own start and the scripts' loading, which take seconds on a loaded machine); after it
   * the fail mode decides until Redis answers.
   */
  static final Duration STARTUP_WAIT = Duration.ofSeconds(10);

  private RedisStates() {}

  static boolean onClassPath() {
    try {
      Class.forName("io.backpressure.redis.RedisGate", false, RedisStates.class.getClassLoader());
      return true;
    } catch (ClassNotFoundException | LinkageError e) {
      return false;
    }
  }

  /**
   * The {@link ResilientRedisGate} of {@code policy}'s target with the configured fail mode: it
   * connects in the background and never fails start-up for an unreachable Redis; start-up waits up
   * to {@link #STARTUP_WAIT} for the first connection, so that an application whose Redis is there
   * starts gated. Whose policy wins when the target already has one in Redis is {@code
   * backpressure.policy-ownership}; one INFO line says which policy is in force and where from.
   * With several cluster seeds every one is given to the client, which tries them in order.
   *
   * @param metering wraps the gate in meters reading the stored policy, or {@code null} for none
   * @param opened receives the gate, to be closed with the application context
   */
  static Gate gate(
      BackpressureProperties properties,
      Policy policy,
      GateMetering metering,
      Consumer<AutoCloseable> opened) {
    RedisGateConfig config = config(properties, policy);
    if (properties.getPolicyOwnership() == BackpressureProperties.PolicyOwnership.VERIFY) {
      verify(config, policy, properties);
    }
    ResilientRedisGate gate = ResilientRedisGate.open(config);
    opened.accept(gate);
    if (gate.awaitConnected(STARTUP_WAIT)) {
      Policy stored = gate.redisGate().policy();
      LOG.info(
          "target {}: gating by {}: {}",
          policy.target(),
          stored.equals(policy)
              ? "the configured policy, as stored in Redis"
              : "the policy stored in Redis, which differs from the configured one"
                  + " (backpressure.policy-ownership=keep; the WARN above names the fields)",
          TargetPolicies.summary(stored));
    } else {
      LOG.info(
          "target {}: Redis not reached yet; deciding {} by the configured policy until it"
              + " answers, then backpressure.policy-ownership={}: {}",
          policy.target(),
          properties.getFailMode(),
          properties.getPolicyOwnership().name().toLowerCase(Locale.ROOT),
          TargetPolicies.summary(policy));
    }
    if (metering == null) {
      return gate;
    }
    // Through the fail-open wrapper, so that calls decided without Redis are counted too; without
    // a registry to meter into, the resilient gate itself.
    Gate metered =
        metering.meter(
            gate.failOpen(),
            () -> gate.connected() ? gate.redisGate().policy() : policy,
            limitSources(gate));
    return metered == gate.failOpen() ? gate : metered;
  }

  /**
   * The limits every worker of the target shares, read from Redis at scrape time: before the first
   * connection the in-flight gauge and the quota gauges read NaN, and the expired-lease count keeps
   * its last reading (a counter must not fail a scrape).
   */
  private static GateMetering.LimitSources limitSources(ResilientRedisGate gate) {
    AtomicLong expired = new AtomicLong();
    return new GateMetering.LimitSources(
        () -> gate.redisGate().policyStore().inFlight(),
        () -> {
          try {
            return expired.updateAndGet(
                last -> Math.max(last, gate.redisGate().policyStore().expiredLeases()));
          } catch (RuntimeException e) {
            LOG.debug("target {}: expired leases not read", gate.target(), e);
            return expired.get();
          }
        },
        () -> gate.redisGate().policyStore().concurrencyLimit(),
        new ConnectedQuotas(gate));
  }

  /** The quota administration of the Redis gate once connected; before, every call throws. */
  private record ConnectedQuotas(ResilientRedisGate gate) implements QuotaAdmin {
    @Override
    public QuotaUse quotaUse(QuotaHolder holder) {
      return gate.redisGate().policyStore().quotaUse(holder);
    }

    @Override
    public AuditEntry setQuota(QuotaHolder holder, Limits.Quota quota, String actor) {
      return gate.redisGate().policyStore().setQuota(holder, quota, actor);
    }

    @Override
    public AuditEntry resetQuota(QuotaHolder holder, String actor) {
      return gate.redisGate().policyStore().resetQuota(holder, actor);
    }

    @Override
    public List<AuditEntry> auditTrail() {
      return gate.redisGate().policyStore().auditTrail();
    }
  }

  /**
   * Fails start-up when Redis answers and holds a policy for the target that differs from {@code
   * policy} (writing {@code policy} when it holds none). A Redis that does not answer within the
   * connect timeout cannot be checked: start-up goes on under the fail mode with a WARN that says
   * so, and when Redis answers later with a policy that differs, the gate stays off Redis (the
   * Redis gate's WARN names the fields) instead of stopping a running application.
   */
  private static void verify(
      RedisGateConfig config, Policy policy, BackpressureProperties properties) {
    RedisPolicyStore store;
    try {
      store = RedisPolicyStore.connect(config);
    } catch (RedisException e) {
      uncheckable(policy, properties, e);
      return;
    }
    try (store) {
      store.claim(policy, io.backpressure.redis.PolicyOwnership.VERIFY);
    } catch (IllegalStateException e) {
      throw new InvalidConfigurationPropertyValueException(
          "backpressure.policy-ownership", "verify", e.getMessage());
    } catch (RedisException e) {
      uncheckable(policy, properties, e);
    }
  }

  /** The WARN of a {@code verify} that Redis did not let run (the cause's class, not its text). */
  private static void uncheckable(
      Policy policy, BackpressureProperties properties, RedisException cause) {
    LOG.warn(
        "target {}: backpressure.policy-ownership=verify could not compare the configured policy"
            + " with the one stored in Redis ({} within backpressure.redis.connect-timeout={});"
            + " start-up goes on, deciding {} by the configured policy until Redis answers; if"
            + " Redis then holds a policy that differs, this gate stays off Redis and logs the"
            + " differing fields instead of failing start-up",
        policy.target(),
        cause.getClass().getSimpleName(),
        properties.getRedis().getConnectTimeout(),
        properties.getFailMode());
  }

  private static RedisGateConfig config(BackpressureProperties properties, Policy policy) {
    BackpressureProperties.Redis redis = properties.getRedis();
    if (redis.getUrl() != null) {
      return config(
          properties, RedisGateConfig.builder(redis.getUrl()), policy, "backpressure.redis.url");
    }
    List<String> nodes = redis.getClusterNodes();
    String withScheme = nodes.stream().filter(n -> n.contains("://")).findFirst().orElse(null);
    List<String> seeds = nodes.stream().map(RedisStates::hostAndPort).toList();
    RedisGateConfig.Builder builder =
        withScheme == null ? RedisGateConfig.builder() : RedisGateConfig.builder(withScheme);
    return config(properties, builder.cluster(seeds), policy, "backpressure.redis.cluster-nodes");
  }

  private static io.backpressure.redis.PolicyOwnership ownership(
      BackpressureProperties.PolicyOwnership ownership) {
    return switch (ownership) {
      case KEEP -> io.backpressure.redis.PolicyOwnership.CREATE_IF_ABSENT;
      case REPLACE -> io.backpressure.redis.PolicyOwnership.REPLACE;
      case VERIFY -> io.backpressure.redis.PolicyOwnership.VERIFY;
    };
  }

  /** A cluster node given as {@code host:port} or as a URL, as {@code host:port}. */
  private static String hostAndPort(String node) {
    if (!node.contains("://")) {
      return node;
    }
    try {
      URI uri = new URI(node);
      return uri.getHost() + ":" + uri.getPort();
    } catch (URISyntaxException e) {
      throw new InvalidConfigurationPropertyValueException(
          "backpressure.redis.cluster-nodes",
          "(not shown)",
          "each node must be host:port or a redis:// URL");
    }
  }

  private static RedisGateConfig config(
      BackpressureProperties properties,
      RedisGateConfig.Builder builder,
      Policy policy,
      String property) {
    BackpressureProperties.Redis redis = properties.getRedis();
    Duration commandTimeout = redis.getCommandTimeout();
    if (properties.getStateTimeout() != null
        && properties.getStateTimeout().compareTo(commandTimeout) < 0) {
      commandTimeout = properties.getStateTimeout();
    }
    try {
      return builder
          .policy(policy, ownership(properties.getPolicyOwnership()))
          .whenUnavailable(properties.getFailMode())
          .commandTimeout(commandTimeout)
          .connectTimeout(redis.getConnectTimeout())
          .keyPrefix(redis.getKeyPrefix())
          .build();
    } catch (IllegalArgumentException e) {
      // RedisGateConfig masks credentials in its messages; the value itself is never echoed.
      throw new InvalidConfigurationPropertyValueException(property, "(not shown)", e.getMessage());
    }
  }
}
