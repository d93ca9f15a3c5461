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
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

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
 * RedisGateConfig#whenUnavailable() whenUnavailable} says, as a {@link ResilientRedisGate}'s do:
 * Redis errors never reach the caller. In LOCAL (the default) each outage starts an in-memory gate
 * with this process's {@linkplain ResilientRedisGate#share share} of the target's caps: the cap
 * divided by the processes alive when Redis last answered, at least one request per safe window.
 * For that, one background thread marks this process alive for every registered target once a
 * second (one small script per target) while Redis answers. {@link #strict} gives the inner gate,
 * which throws.
 *
 * <p>Thread-safe. Registering a target reads (and, per the options' {@link PolicyOwnership}, may
 * write) its policy in Redis once, and so needs Redis to answer. {@link #close()} stops the
 * heartbeat, removes this process's liveness entries (best effort) and closes the connection.
 */
public final class RedisGates implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(RedisGates.class);

  /** Stands in for the target of the shared connection's configuration, which no key uses. */
  private static final String CONNECTION_TARGET = "connection";

  private final RedisGateConfig.Builder options;
  private final Connection connection;
  private final Map<String, Entry> gates = new ConcurrentHashMap<>();

  /** Beats the registered targets' liveness entries in LOCAL mode; null in the other modes. */
  private final @Nullable ScheduledExecutorService heartbeat;

  /**
   * One target's strict gate, the fail-open gate around it and, in LOCAL mode, its live workers.
   */
  private record Entry(RedisGate strict, FailOpenGate gate, @Nullable LiveWorkers live) {}

  private RedisGates(RedisGateConfig.Builder options, Connection connection) {
    this.options = options;
    this.connection = connection;
    if (options.unavailableMode() == FailOpenGate.Mode.LOCAL) {
      heartbeat =
          Executors.newSingleThreadScheduledExecutor(
              r -> {
                Thread thread = new Thread(r, "backpressure-redis-heartbeat");
                thread.setDaemon(true);
                return thread;
              });
      // What a beat throws is logged by beatAll(): the future has nothing more to say.
      Future<?> unused =
          heartbeat.scheduleWithFixedDelay(
              this::beatAll,
              LiveWorkers.HEARTBEAT.toMillis(),
              LiveWorkers.HEARTBEAT.toMillis(),
              TimeUnit.MILLISECONDS);
    } else {
      heartbeat = null;
    }
  }

  /**
   * Connects to the server or cluster of {@code options} (its target and policy, if set, are not
   * used; give each target's policy to {@link #gate(Policy)}). The builder is read again whenever a
   * target is registered; do not change it afterwards.
   *
   * @throws RedisException when the server cannot be reached, naming the cause
   */
  public static RedisGates connect(RedisGateConfig.Builder options) {
    Objects.requireNonNull(options, "options");
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
    return registered(target).strict();
  }

  private Entry registered(String target) {
    Entry entry = gates.get(target);
    if (entry == null) {
      throw new NoSuchElementException(
          "target '" + target + "' is not registered; call gate(policy) first");
    }
    return entry;
  }

  /** The registered targets. */
  public Set<String> targets() {
    return Set.copyOf(gates.keySet());
  }

  /**
   * The processes alive for {@code target} when Redis last answered this one's heartbeat (this one
   * included): what LOCAL divides the target's caps by. Always 1 in the other modes, which do not
   * beat.
   *
   * @throws NoSuchElementException when the target is not registered
   */
  public int liveWorkers(String target) {
    LiveWorkers live = registered(target).live();
    return live == null ? 1 : live.count();
  }

  /**
   * Stops the heartbeat, removes this process's liveness entries and closes the connection; every
   * gate handed out then decides by its mode.
   */
  @Override
  public void close() {
    if (heartbeat != null) {
      heartbeat.shutdownNow();
      try {
        // A beat under way sends its command before the removals below, not after them.
        heartbeat.awaitTermination(1, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      for (Entry entry : gates.values()) {
        LiveWorkers live = entry.live();
        if (live != null) {
          live.leave(connection);
        }
      }
    }
    connection.close();
  }

  /** One heartbeat of every registered target; whatever escapes one is logged, not kept. */
  private void beatAll() {
    for (Entry entry : gates.values()) {
      LiveWorkers live = entry.live();
      if (live == null) {
        continue;
      }
      try {
        live.beat(connection);
      } catch (RuntimeException e) {
        LOG.error("target {}: the heartbeat failed", entry.strict().target(), e);
      }
    }
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
          FailOpenGate.Builder gate =
              FailOpenGate.around(strict)
                  .mode(config.whenUnavailable())
                  .probeInterval(ResilientRedisGate.PROBE)
                  .handBack(ResilientRedisGate.handBack(config));
          LiveWorkers live = null;
          if (config.whenUnavailable() == FailOpenGate.Mode.LOCAL) {
            LiveWorkers workers = new LiveWorkers(config);
            workers.beat(connection);
            gate.localFallback(
                () -> ResilientRedisGate.localGate(strict.policy(), workers.count()));
            live = workers;
          }
          return new Entry(strict, gate.build(), live);
        });
  }
}
