package io.backpressure.redis;

import io.backpressure.core.FailOpenGate;
import io.backpressure.core.Gate;
import io.backpressure.core.Policy;
import io.lettuce.core.RedisException;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;

/**
 * The gates of many targets (one per model or deployment) in one process, over one connection: one
 * Lettuce client and one multiplexed connection (on a cluster, one per node) for every target,
 * however many there are.
 *
 * <pre>{@code
 * try (RedisGates gates = RedisGates.connect(RedisGateConfig.builder().cluster("10.0.0.1:7000"))) {
 *   Gate gpt = gates.gate(PolicyYaml.read(Path.of("gpt-4o.yaml")));   // registers the target
 *   Gate same = gates.gate("openai/gpt-4o");                         // the same gate, by name
 * }
 * }</pre>
 *
 * <p>Each target's gate keeps its own state in this process (its policy copy, id counter and
 * server-clock estimate), and nothing is shared between targets but the connection, which
 * multiplexes without locking: calls for different targets never wait for each other here. A lookup
 * of a known target is a lock-free map read. On a cluster, targets spread over the masters by their
 * hash tag (see {@link Keys}).
 *
 * <p>The gates handed out by {@link #gate} fail as the options' {@linkplain
 * RedisGateConfig#whenUnavailable() whenUnavailable} says (OPEN by default, or CLOSED): Redis
 * errors never reach the caller. LOCAL is not offered here, since splitting a cap between live
 * workers needs {@link ResilientRedisGate}'s per-target heartbeat. {@link #strict} gives the inner
 * gate, which throws.
 *
 * <p>Thread-safe. Registering a target reads (and, per the options' {@link PolicyOwnership}, may
 * write) its policy in Redis once, and so needs Redis to answer.
 */
public final class RedisGates implements AutoCloseable {
  /** Stands in for the target of the shared connection's configuration, which no key uses. */
  private static final String CONNECTION_TARGET = "connection";

  private final RedisGateConfig.Builder options;
  private final Connection connection;
  private final Map<String, Entry> gates = new ConcurrentHashMap<>();

  /** One target's strict gate and the fail-open gate around it. */
  private record Entry(RedisGate strict, FailOpenGate gate) {}

  private RedisGates(RedisGateConfig.Builder options, Connection connection) {
    this.options = options;
    this.connection = connection;
  }

  /**
   * Connects to the server or cluster of {@code options} (its target and policy, if set, are not
   * used; give each target's policy to {@link #gate(Policy)}). The builder is read again whenever a
   * target is registered; do not change it afterwards.
   *
   * @throws IllegalArgumentException when the options ask for whenUnavailable LOCAL
   * @throws RedisException when the server cannot be reached, naming the cause
   */
  public static RedisGates connect(RedisGateConfig.Builder options) {
    Objects.requireNonNull(options, "options");
    if (options.unavailableMode() == FailOpenGate.Mode.LOCAL) {
      throw new IllegalArgumentException(
          "whenUnavailable must be OPEN or CLOSED for RedisGates, got LOCAL"
              + " (LOCAL splits caps between live workers: use ResilientRedisGate per target)");
    }
    return new RedisGates(options, Connection.open(options.buildFor(CONNECTION_TARGET, null)));
  }

  /**
   * The gate of {@code policy}'s target, registered on first use: the policy is handled as the
   * options' {@link PolicyOwnership} says (by default written only if the target has none). Later
   * calls return the same gate, whatever policy they pass.
   *
   * @throws RedisException when Redis does not answer while the target is registered
   */
  public Gate gate(Policy policy) {
    Objects.requireNonNull(policy, "policy");
    return entry(policy.target(), policy).gate();
  }

  /**
   * The gate of {@code target}, registered on first use with the policy stored in Redis.
   *
   * @throws NoSuchElementException when the target is not registered and Redis has no policy for it
   * @throws RedisException when Redis does not answer while the target is registered
   */
  public Gate gate(String target) {
    return entry(target, null).gate();
  }

  /** The strict gate of a registered target (it throws when Redis does not answer). */
  public RedisGate strict(String target) {
    Entry entry = gates.get(target);
    if (entry == null) {
      throw new NoSuchElementException(
          "target '" + target + "' is not registered; call gate(policy) first");
    }
    return entry.strict();
  }

  /** The registered targets. */
  public Set<String> targets() {
    return Set.copyOf(gates.keySet());
  }

  /** Closes the connection; every gate handed out stops working. */
  @Override
  public void close() {
    connection.close();
  }

  private Entry entry(String target, @Nullable Policy policy) {
    Entry known = gates.get(target);
    if (known != null) {
      return known;
    }
    return gates.computeIfAbsent(
        target,
        t -> {
          RedisGateConfig config = options.buildFor(t, policy);
          RedisGate strict = RedisGate.over(connection, false, config);
          FailOpenGate gate = FailOpenGate.around(strict).mode(config.whenUnavailable()).build();
          return new Entry(strict, gate);
        });
  }
}
