package io.backpressure.redis;

import io.backpressure.core.FailOpenGate;
import io.backpressure.core.Policy;
import io.backpressure.core.spi.Redaction;
import io.lettuce.core.RedisURI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * How to reach a target's state on Redis or Valkey. Build one with {@link #builder(String)}.
 *
 * <p>URL forms (Lettuce's): {@code redis://host:6379/0}, {@code redis://:password@host}, {@code
 * redis://user:password@host} (ACL), {@code rediss://user:password@host:6380} (TLS with certificate
 * and host name verification), {@code redis-sentinel://host:26379/0#mymaster}.
 *
 * <p>The user name and password are percent-encoded, as in any URL ({@code /} as {@code %2F},
 * {@code @} as {@code %40}); a raw character that a URL parser would split at is refused with a
 * message that shows the URL with its credentials masked.
 *
 * <p>A Redis Cluster is reached from seed nodes: {@code builder().cluster("10.0.0.1:7000",
 * "10.0.0.2:7000")}, or {@code builder("rediss://app:secret@any").cluster(...)} to give every seed
 * that URL's scheme, credentials and TLS. One seed that answers is enough; the client learns the
 * rest of the topology from it and follows it (see {@code Connection}).
 *
 * <p>{@link #toString()} masks the URL's credentials.
 *
 * <p>A value, safe to read from any thread.
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
 * @param cluster whether the state is on a Redis Cluster
 * @param clusterSeeds with {@code cluster}, the seed nodes as URLs ({@code url}'s scheme and
 *     credentials, each seed's host and port); the first is {@code url}. Empty otherwise
 * @param ownership what connecting does with {@code initialPolicy}
 * @param whenUnavailable what the calls of a {@linkplain ResilientRedisGate resilient gate} (or of
 *     {@link RedisGates}) get while Redis does not answer: decided by a local gate with this
 *     worker's share of the caps (LOCAL, the default; see {@link ResilientRedisGate#share}),
 *     admitted ungated (OPEN) or deferred (CLOSED)
 * @param tls CA and client certificate files for {@code rediss://}, or null for the JVM's defaults
 * @param fairQueuing whether the gate decides with the rebuilt rule ({@code FairRule}: a cap layer,
 *     an order layer and the defer protocol, as {@code InMemoryGate.createFairQueuing}) instead of
 *     the nested buckets; every gate of a target must decide with the same rule, since each keeps
 *     its own state under the target's keys
 */
public record RedisGateConfig(
    String url,
    String target,
    @Nullable Policy initialPolicy,
    TimeSource timeSource,
    Duration commandTimeout,
    Duration connectTimeout,
    String keyPrefix,
    boolean cluster,
    List<String> clusterSeeds,
    PolicyOwnership ownership,
    FailOpenGate.Mode whenUnavailable,
    @Nullable TlsFiles tls,
    boolean fairQueuing) {

  /** {@code HOST:PORT}, the host a name, an IPv4 address or a bracketed IPv6 address. */
  private static final Pattern SEED =
      Pattern.compile("(\\[[0-9a-fA-F:.]+\\]|[A-Za-z0-9._-]+):([0-9]{1,5})");

  public RedisGateConfig {
    Objects.requireNonNull(url, "url");
    clusterSeeds = List.copyOf(Objects.requireNonNull(clusterSeeds, "clusterSeeds"));
    if (!clusterSeeds.isEmpty() && !cluster) {
      throw new IllegalArgumentException("clusterSeeds are given, so cluster must be true");
    }
    checkUrl(url);
    if (target == null || target.isBlank() || target.length() > 128) {
      throw new IllegalArgumentException(
          "target must be a non-empty name of at most 128 characters, got '" + target + "'");
    }
    if (initialPolicy != null && !initialPolicy.target().equals(target)) {
      throw new IllegalArgumentException(
          "initialPolicy is for target '" + initialPolicy.target() + "', not '" + target + "'");
    }
    Objects.requireNonNull(timeSource, "timeSource");
    positive("commandTimeout", commandTimeout);
    positive("connectTimeout", connectTimeout);
    if (keyPrefix == null
        || keyPrefix.isEmpty()
        || keyPrefix.length() > 64
        || keyPrefix.contains("{")
        || keyPrefix.contains("}")) {
      throw new IllegalArgumentException(
          "keyPrefix must be 1 to 64 characters without braces, got '" + keyPrefix + "'");
    }
    Objects.requireNonNull(ownership, "ownership");
    Objects.requireNonNull(whenUnavailable, "whenUnavailable");
  }

  /**
   * Checks that {@code url} is read as it is meant: its user name and password percent-encoded, so
   * that the parser splits the URL at its last {@code @}, and the rest a Redis URL. No message
   * quotes the credentials or a piece of them: the parser's own complaint is about the URL with its
   * credentials masked.
   */
  private static void checkUrl(String url) {
    String userInfo = Redaction.userInfo(url);
    String masked = Redaction.url(url);
    if (userInfo != null && !Redaction.isEncodedUserInfo(userInfo)) {
      throw new IllegalArgumentException(
          "url's user name and password must be percent-encoded (every character but letters,"
              + " digits and -._~!$&'()*+,;=: as %XX, e.g. '/' as %2F, '@' as %40), got '"
              + masked
              + "'");
    }
    try {
      RedisURI.create(url);
    } catch (RuntimeException e) {
      String why;
      try {
        RedisURI.create(masked);
        why = "its user name or password cannot be read";
      } catch (RuntimeException onMasked) {
        why = String.valueOf(onMasked.getMessage());
      }
      throw new IllegalArgumentException(
          "url must be a redis://, rediss:// or redis-sentinel:// URL, got '"
              + masked
              + "': "
              + Redaction.scrub(why, url));
    }
  }

  /** The configuration with the URL's credentials masked. */
  @Override
  public String toString() {
    return "RedisGateConfig[url="
        + Redaction.url(url)
        + ", target="
        + target
        + ", ownership="
        + ownership
        + ", whenUnavailable="
        + whenUnavailable
        + ", timeSource="
        + timeSource
        + ", commandTimeout="
        + commandTimeout
        + ", connectTimeout="
        + connectTimeout
        + ", keyPrefix="
        + keyPrefix
        + ", cluster="
        + cluster
        + (clusterSeeds.size() > 1
            ? ", clusterSeeds=" + clusterSeeds.stream().map(Redaction::url).toList()
            : "")
        + ", tls="
        + tls
        + "]";
  }

  /** A builder for the server at {@code url}. */
  public static Builder builder(String url) {
    return new Builder(Objects.requireNonNull(url, "url"));
  }

  /**
   * A builder without a URL, for {@link Builder#cluster(String...)} (plain {@code redis://} seeds).
   * Building it without seeds is an error.
   */
  public static Builder builder() {
    return new Builder(null);
  }

  /**
   * The URL of one cluster seed: {@code seed} ({@code HOST:PORT}) with the scheme, credentials and
   * database of {@code base} ({@code redis://} when null). Credentials never appear in the error.
   *
   * @throws IllegalArgumentException naming the seed when it is not {@code HOST:PORT} with a port
   *     in [1, 65535]
   */
  static String seedUrl(@Nullable String base, @Nullable String seed) {
    Matcher m = seed == null ? null : SEED.matcher(seed.strip());
    int port = m != null && m.matches() ? Integer.parseInt(m.group(2)) : 0;
    if (m == null || port < 1 || port > 65_535) {
      throw new IllegalArgumentException(
          "clusterSeeds: each seed must be HOST:PORT with a port in [1, 65535], got '"
              + seed
              + "'");
    }
    String host = m.group(1);
    if (base == null) {
      return "redis://" + host + ":" + port;
    }
    int scheme = base.indexOf("://");
    int at = base.lastIndexOf('@');
    int hostStart = at > scheme ? at + 1 : scheme + 3;
    int hostEnd = hostStart;
    while (hostEnd < base.length() && "/?#".indexOf(base.charAt(hostEnd)) < 0) {
      hostEnd++;
    }
    return base.substring(0, hostStart) + host + ":" + port + base.substring(hostEnd);
  }

  /** This configuration for another target (same server and options, no initial policy). */
  public RedisGateConfig forTarget(String otherTarget) {
    return new RedisGateConfig(
        url,
        otherTarget,
        null,
        timeSource,
        commandTimeout,
        connectTimeout,
        keyPrefix,
        cluster,
        clusterSeeds,
        PolicyOwnership.CREATE_IF_ABSENT,
        whenUnavailable,
        tls,
        fairQueuing);
  }

  private static void positive(String field, Duration value) {
    if (value == null || value.isNegative() || value.isZero()) {
      throw new IllegalArgumentException(field + " must be a positive duration, got " + value);
    }
  }

  /**
   * Builds a {@link RedisGateConfig}; values are checked by {@link #build()}. Not thread-safe:
   * configure it on one thread, then build.
   */
  public static final class Builder {
    private final @Nullable String url;
    private @Nullable String target;
    private @Nullable Policy initialPolicy;
    private TimeSource timeSource = TimeSource.server();
    private Duration commandTimeout = Duration.ofSeconds(1);
    private Duration connectTimeout = Duration.ofSeconds(2);
    private String keyPrefix = "bp";
    private boolean cluster;
    private List<String> seeds = List.of();
    private PolicyOwnership ownership = PolicyOwnership.CREATE_IF_ABSENT;
    private FailOpenGate.Mode whenUnavailable = FailOpenGate.Mode.LOCAL;
    private @Nullable TlsFiles tls;
    private boolean fairQueuing;

    private Builder(@Nullable String url) {
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
     * What calls of a {@link ResilientRedisGate} or {@link RedisGates} get while Redis does not
     * answer, at start-up too. Default LOCAL: decided by an in-memory gate with this worker's share
     * of the caps (the cap divided by the workers alive when Redis last answered, at least one
     * request per safe window), so that an outage neither stops the calls nor lets every worker
     * send the whole cap. LOCAL takes the caps from the configured {@linkplain #policy policy}, or
     * from the one read from Redis; a gate given only a {@linkplain #target target} defers its
     * calls until Redis first answers. OPEN admits ungated (as without the gate, until the
     * provider's own 429s); CLOSED defers every call.
     */
    public Builder whenUnavailable(FailOpenGate.Mode mode) {
      this.whenUnavailable = mode;
      return this;
    }

    /** The mode set by {@link #whenUnavailable(FailOpenGate.Mode)}. */
    FailOpenGate.Mode unavailableMode() {
      return whenUnavailable;
    }

    /**
     * CA and client certificate files for {@code rediss://} URLs (default: the JVM's trust store).
     */
    public Builder tls(TlsFiles files) {
      this.tls = files;
      return this;
    }

    /**
     * Whether the gate decides with the rebuilt rule ({@code FairRule}), as {@code
     * InMemoryGate.createFairQueuing} does in memory (default: false, the nested buckets). Every
     * gate of one target must decide with the same rule.
     */
    public Builder fairQueuing(boolean fairQueuing) {
      this.fairQueuing = fairQueuing;
      return this;
    }

    /** Where decision time comes from (default: the server's {@code TIME}). */
    public Builder timeSource(TimeSource timeSource) {
      this.timeSource = timeSource;
      return this;
    }

    /**
     * Per-command timeout (default 1 s): a command that takes longer fails, and a {@linkplain
     * ResilientRedisGate resilient gate} decides by its fail mode until Redis answers again. Long
     * enough for an admission on a busy Redis or a loaded client host, which a shorter timeout
     * would send to the fail mode while Redis is up.
     */
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

    /** Whether the URL names a Redis Cluster node (default false); the URL is then the one seed. */
    public Builder cluster(boolean cluster) {
      this.cluster = cluster;
      if (!cluster) {
        this.seeds = List.of();
      }
      return this;
    }

    /**
     * A Redis Cluster reached from these seed nodes, each {@code HOST:PORT}; each gets the scheme,
     * credentials and TLS of the builder's URL, if it was given one (its host is then not used).
     */
    public Builder cluster(String... seeds) {
      Objects.requireNonNull(seeds, "seeds");
      if (seeds.length == 0) {
        throw new IllegalArgumentException("clusterSeeds: give at least one seed HOST:PORT");
      }
      this.seeds = List.of(seeds);
      this.cluster = true;
      return this;
    }

    /** Same as {@link #cluster(String...)}. */
    public Builder cluster(List<String> seeds) {
      return cluster(seeds.toArray(String[]::new));
    }

    @SuppressWarnings("NullAway") // a null target is rejected by the constructor, naming the field
    public RedisGateConfig build() {
      return buildFor(target, initialPolicy);
    }

    /**
     * This builder's server and options for {@code otherTarget} and its policy (null: the stored
     * one), without changing the builder.
     */
    RedisGateConfig buildFor(String otherTarget, @Nullable Policy policy) {
      List<String> seedUrls = new ArrayList<>();
      for (String seed : seeds) {
        seedUrls.add(seedUrl(url, seed));
      }
      String base = seedUrls.isEmpty() ? url : seedUrls.get(0);
      if (base == null) {
        throw new IllegalArgumentException(
            "url: give a URL (builder(url)) or cluster seeds (cluster(HOST:PORT, ...))");
      }
      if (cluster && seedUrls.isEmpty()) {
        seedUrls.add(base);
      }
      return new RedisGateConfig(
          base,
          otherTarget,
          policy,
          timeSource,
          commandTimeout,
          connectTimeout,
          keyPrefix,
          cluster,
          seedUrls,
          ownership,
          whenUnavailable,
          tls,
          fairQueuing);
    }
  }
}
