package io.backpressure.redis;

import io.backpressure.core.FailOpenGate;
import io.backpressure.core.Policy;
import io.backpressure.core.Redaction;
import io.lettuce.core.RedisURI;
import java.time.Duration;
import java.util.Objects;

/**
 * How to reach a target's state on Redis or Valkey. Build one with {@link #builder(String)}.
 *
 * <p>URL forms (Lettuce's): {@code redis://host:6379/0}, {@code redis://:password@host},
 * {@code redis://user:password@host} (ACL), {@code rediss://user:password@host:6380} (TLS with
 * certificate and host name verification), {@code redis-sentinel://host:26379/0#mymaster}.
 *
 * <p>{@link #toString()} masks the URL's credentials.
 *
 * @param url the server, as above
 * @param target the target whose state to use, e.g. {@code openai/gpt-4o}
 * @param initialPolicy the policy this worker is configured with, or {@code null} to require one
 *     stored; what happens to it is {@code ownership}
 * @param timeSource where decision time comes from
 * @param commandTimeout how long one command may take before it fails (and a {@link
 *     io.backpressure.core.FailOpenGate} decides instead)
 * @param connectTimeout how long opening the connection may take
 * @param keyPrefix the first part of every key ({@code <prefix>:{<target>}:…})
 * @param cluster whether the URL names a node of a Redis Cluster
 * @param ownership what connecting does with {@code initialPolicy}
 * @param whenUnavailable what a {@linkplain ResilientRedisGate resilient gate}'s calls get while
 *     Redis does not answer: admitted ungated (OPEN, the default), deferred (CLOSED) or decided by a
 *     local gate with this worker's share of the caps (LOCAL)
 * @param tls CA and client certificate files for {@code rediss://}, or null for the JVM's defaults
 */
public record RedisGateConfig(
    String url,
    String target,
    Policy initialPolicy,
    TimeSource timeSource,
    Duration commandTimeout,
    Duration connectTimeout,
    String keyPrefix,
    boolean cluster,
    PolicyOwnership ownership,
    FailOpenGate.Mode whenUnavailable,
    TlsFiles tls) {

  public RedisGateConfig {
    Objects.requireNonNull(url, "url");
    try {
      RedisURI.create(url);
    } catch (RuntimeException e) {
      throw new IllegalArgumentException("url must be a redis://, rediss:// or redis-sentinel:// URL, got '"
          + Redaction.url(url) + "': " + Redaction.scrub(String.valueOf(e.getMessage()), url));
    }
    if (target == null || target.isBlank() || target.length() > 128) {
      throw new IllegalArgumentException("target must be a non-empty name of at most 128 characters, got '" + target + "'");
    }
    if (initialPolicy != null && !initialPolicy.target().equals(target)) {
      throw new IllegalArgumentException(
          "initialPolicy is for target '" + initialPolicy.target() + "', not '" + target + "'");
    }
    Objects.requireNonNull(timeSource, "timeSource");
    positive("commandTimeout", commandTimeout);
    positive("connectTimeout", connectTimeout);
    if (keyPrefix == null || keyPrefix.isEmpty() || keyPrefix.length() > 64
        || keyPrefix.contains("{") || keyPrefix.contains("}")) {
      throw new IllegalArgumentException(
          "keyPrefix must be 1 to 64 characters without braces, got '" + keyPrefix + "'");
    }
    Objects.requireNonNull(ownership, "ownership");
    Objects.requireNonNull(whenUnavailable, "whenUnavailable");
    if (whenUnavailable == FailOpenGate.Mode.LOCAL && initialPolicy == null) {
      throw new IllegalArgumentException("whenUnavailable LOCAL needs the policy (Builder.policy), so that the "
          + "worker can gate locally even before it first reaches Redis");
    }
  }

  /** The configuration with the URL's credentials masked. */
  @Override
  public String toString() {
    return "RedisGateConfig[url=" + Redaction.url(url) + ", target=" + target + ", ownership=" + ownership
        + ", whenUnavailable=" + whenUnavailable + ", timeSource=" + timeSource + ", commandTimeout="
        + commandTimeout + ", connectTimeout=" + connectTimeout + ", keyPrefix=" + keyPrefix + ", cluster="
        + cluster + ", tls=" + tls + "]";
  }

  /** A builder for the server at {@code url}. */
  public static Builder builder(String url) {
    return new Builder(url);
  }

  /** This configuration for another target (same server and options, no initial policy). */
  public RedisGateConfig forTarget(String otherTarget) {
    return new RedisGateConfig(url, otherTarget, null, timeSource, commandTimeout, connectTimeout, keyPrefix, cluster,
        PolicyOwnership.CREATE_IF_ABSENT, whenUnavailable == FailOpenGate.Mode.LOCAL ? FailOpenGate.Mode.OPEN
            : whenUnavailable, tls);
  }

  private static void positive(String field, Duration value) {
    if (value == null || value.isNegative() || value.isZero()) {
      throw new IllegalArgumentException(field + " must be a positive duration, got " + value);
    }
  }

  /** Builds a {@link RedisGateConfig}; values are checked by {@link #build()}. */
  public static final class Builder {
    private final String url;
    private String target;
    private Policy initialPolicy;
    private TimeSource timeSource = TimeSource.server();
    private Duration commandTimeout = Duration.ofMillis(250);
    private Duration connectTimeout = Duration.ofSeconds(2);
    private String keyPrefix = "bp";
    private boolean cluster;
    private PolicyOwnership ownership = PolicyOwnership.CREATE_IF_ABSENT;
    private FailOpenGate.Mode whenUnavailable = FailOpenGate.Mode.OPEN;
    private TlsFiles tls;

    private Builder(String url) {
      this.url = url;
    }

    /** The target, whose policy must already be stored. */
    public Builder target(String target) {
      this.target = target;
      return this;
    }

    /**
     * The target of {@code policy}, written only if the target has none yet ({@link
     * PolicyOwnership#CREATE_IF_ABSENT}): a stored policy wins, with a WARN naming the fields that
     * differ. Same as {@code policy(policy, PolicyOwnership.CREATE_IF_ABSENT)}.
     */
    public Builder policy(Policy policy) {
      return policy(policy, PolicyOwnership.CREATE_IF_ABSENT);
    }

    /** The target of {@code policy}, and what connecting does with it given the stored one. */
    public Builder policy(Policy policy, PolicyOwnership ownership) {
      this.initialPolicy = Objects.requireNonNull(policy, "policy");
      this.ownership = Objects.requireNonNull(ownership, "ownership");
      this.target = policy.target();
      return this;
    }

    /**
     * What calls of a {@link ResilientRedisGate} get while Redis does not answer (default OPEN:
     * admitted ungated, so the application behaves as without the gate). LOCAL needs the policy.
     */
    public Builder whenUnavailable(FailOpenGate.Mode mode) {
      this.whenUnavailable = mode;
      return this;
    }

    /** CA and client certificate files for {@code rediss://} URLs (default: the JVM's trust store). */
    public Builder tls(TlsFiles files) {
      this.tls = files;
      return this;
    }

    /** Where decision time comes from (default: the server's {@code TIME}). */
    public Builder timeSource(TimeSource timeSource) {
      this.timeSource = timeSource;
      return this;
    }

    /** Per-command timeout (default 250 ms). */
    public Builder commandTimeout(Duration timeout) {
      this.commandTimeout = timeout;
      return this;
    }

    /** Connection timeout (default 2 s). */
    public Builder connectTimeout(Duration timeout) {
      this.connectTimeout = timeout;
      return this;
    }

    /** Key prefix (default {@code bp}). */
    public Builder keyPrefix(String prefix) {
      this.keyPrefix = prefix;
      return this;
    }

    /** Whether the URL names a Redis Cluster node (default false). */
    public Builder cluster(boolean cluster) {
      this.cluster = cluster;
      return this;
    }

    public RedisGateConfig build() {
      return new RedisGateConfig(url, target, initialPolicy, timeSource, commandTimeout, connectTimeout,
          keyPrefix, cluster, ownership, whenUnavailable, tls);
    }
  }
}
