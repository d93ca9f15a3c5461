package io.backpressure.redis;

import io.backpressure.core.Policy;
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
 * @param url the server, as above
 * @param target the target whose state to use, e.g. {@code openai/gpt-4o}
 * @param initialPolicy written when the target has no policy yet; {@code null} to require one
 * @param timeSource where decision time comes from
 * @param commandTimeout how long one command may take before it fails (and a {@link
 *     io.backpressure.core.FailOpenGate} decides instead)
 * @param connectTimeout how long opening the connection may take
 * @param keyPrefix the first part of every key ({@code <prefix>:{<target>}:…})
 * @param cluster whether the URL names a node of a Redis Cluster
 */
public record RedisGateConfig(
    String url,
    String target,
    Policy initialPolicy,
    TimeSource timeSource,
    Duration commandTimeout,
    Duration connectTimeout,
    String keyPrefix,
    boolean cluster) {

  public RedisGateConfig {
    Objects.requireNonNull(url, "url");
    try {
      RedisURI.create(url);
    } catch (RuntimeException e) {
      throw new IllegalArgumentException("url must be a redis://, rediss:// or redis-sentinel:// URL, got '"
          + url.replaceAll("//[^@/]*@", "//***@") + "': " + e.getMessage(), e);
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
  }

  /** A builder for the server at {@code url}. */
  public static Builder builder(String url) {
    return new Builder(url);
  }

  /** This configuration for another target (same server and options, no initial policy). */
  public RedisGateConfig forTarget(String otherTarget) {
    return new RedisGateConfig(url, otherTarget, null, timeSource, commandTimeout, connectTimeout, keyPrefix, cluster);
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

    private Builder(String url) {
      this.url = url;
    }

    /** The target, whose policy must already be stored. */
    public Builder target(String target) {
      this.target = target;
      return this;
    }

    /** The target of {@code policy}, storing {@code policy} if the target has none yet. */
    public Builder policy(Policy policy) {
      this.initialPolicy = Objects.requireNonNull(policy, "policy");
      this.target = policy.target();
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
          keyPrefix, cluster);
    }
  }
}
