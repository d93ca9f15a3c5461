package io.backpressure.redis;

import io.backpressure.core.Admission;
import io.backpressure.core.AdmissionRequest;
import io.backpressure.core.Cost;
import io.backpressure.core.Dimension;
import io.backpressure.core.FailOpenGate;
import io.backpressure.core.Gate;
import io.backpressure.core.Grant;
import io.backpressure.core.InMemoryGate;
import io.backpressure.core.Policy;
import io.backpressure.core.RejectReason;
import io.backpressure.core.Ticker;
import io.backpressure.core.feedback.ProviderSignal;
import io.backpressure.core.spi.Redaction;
import io.backpressure.core.spi.RequestCheck;
import io.lettuce.core.RedisConnectionException;
import java.time.Duration;
import java.util.HashSet;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Redis gate as applications should use it: it never throws for an unavailable Redis, not even
 * at start-up. Build it with {@link #open(RedisGateConfig)}:
 *
 * <pre>{@code
 * RedisGateConfig config = RedisGateConfig.builder("rediss://app:secret@redis.internal:6380")
 *     .policy(PolicyYaml.read(Path.of("policy.yaml")))
 *     .build();                                   // whenUnavailable(LOCAL) is the default
 * try (ResilientRedisGate gate = ResilientRedisGate.open(config)) {
 *   Admission answer = gate.admit("acme", "P1", Cost.requests(1).tokens(420));
 * }
 * }</pre>
 *
 * <ul>
 *   <li><b>Start-up</b>: {@code open} returns at once and connects in the background, retrying
 *       every half second; until Redis first answers, calls are decided by the fallback mode. The
 *       cause of a failed attempt (refused, timed out, authentication; the URL's credentials
 *       masked) is logged once at WARN, one line without a stack trace, not again at every retry
 *       nor when two causes alternate. A target with no policy stored and none configured counts as
 *       unavailable until one is written.
 *   <li><b>Outages</b>: the strict {@link RedisGate} sits inside a {@link FailOpenGate} in the
 *       configured {@linkplain RedisGateConfig#whenUnavailable() mode}: LOCAL (default) decides
 *       with an in-memory gate, OPEN admits ungated, CLOSED defers. One call at a time probes
 *       Redis, {@link #PROBE} apart; one warning per ten seconds, no stack traces; gating resumes
 *       with the first answer, after the worker has charged Redis with what it admitted without it
 *       in the last {@linkplain #handBack hand-back horizon}, so the windows after the workers'
 *       staggered return hold the cap.
 *   <li><b>LOCAL</b>: each outage starts a new in-memory gate whose buckets start empty, with this
 *       worker's share of every cap: the cap divided by the number of workers that were alive when
 *       Redis last answered, at least one request per safe window (see {@link #share(Policy,
 *       int)}). Every worker refreshes a liveness entry for its target once a second while Redis
 *       answers ({@code <prefix>:{<target>}:workers}, a sorted set scored by "alive until", three
 *       seconds ahead). So N workers in LOCAL admit about the cap between them, not N times it.
 *       Bursts are kept whole, so that a call the shared state would take at once also fits
 *       locally; one larger than the share's safe-window allowance waits for Redis instead of being
 *       rejected. A worker that has never reached Redis counts only itself. The caps are the policy
 *       last read from Redis, or the configured one before that; with neither (a target given by
 *       name whose Redis has not answered yet) no caps are known, and calls are deferred as in
 *       CLOSED until Redis first answers.
 * </ul>
 *
 * <p>Thread-safe. {@link #close()} stops the background work, removes this worker's liveness entry
 * (best effort) and closes the connection.
 */
public final class ResilientRedisGate implements Gate, AutoCloseable {
  private final CountDownLatch firstConnection = new CountDownLatch(1);
  private static final Logger LOG = LoggerFactory.getLogger(ResilientRedisGate.class);

  /** How often a worker that is not connected tries again. */
  static final Duration RETRY = Duration.ofMillis(500);

  /**
   * The pause between two probes of a Redis that does not answer. Short, because only one call at a
   * time probes (and waits up to the command timeout) while the others are decided at once, and
   * every call decided without Redis after it is back adds to what it admits in the same provider
   * window (the evaluation README, faults).
   */
  static final Duration PROBE = Duration.ofMillis(100);

  private final RedisGateConfig config;
  private final LiveWorkers liveWorkers;
  private final ScheduledExecutorService background;
  private final FailOpenGate gate;
  private volatile @Nullable RedisGate redis;
  private volatile String lastConnectFailure = "not connected to Redis yet";

  /**
   * The causes of failed connection attempts logged so far, each once (at most {@value
   * #REPORTED_CAUSES}, then it starts again); used by the background thread only.
   */
  private final Set<String> reportedFailures = new HashSet<>();

  private static final int REPORTED_CAUSES = 16;
  private volatile boolean closed;
  private volatile @Nullable Future<?> heartbeats;

  private ResilientRedisGate(RedisGateConfig config) {
    this.config = config;
    this.liveWorkers = new LiveWorkers(config);
    this.background =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread thread = new Thread(r, "backpressure-redis-" + config.target());
              thread.setDaemon(true);
              return thread;
            });
    FailOpenGate.Builder builder =
        FailOpenGate.around(new Connected())
            .mode(config.whenUnavailable())
            .probeInterval(PROBE)
            .handBack(handBack(config));
    if (config.whenUnavailable() == FailOpenGate.Mode.LOCAL) {
      builder.localFallback(this::localGate);
    }
    this.gate = builder.build();
  }

  /**
   * A gate for {@code config}'s target that connects in the background and fails as {@code
   * config.whenUnavailable()} says until Redis answers. Never throws for an unreachable Redis.
   */
  public static ResilientRedisGate open(RedisGateConfig config) {
    ResilientRedisGate gate = new ResilientRedisGate(config);
    gate.background.execute(gate.reported(gate::connect));
    return gate;
  }

  @Override
  public String target() {
    return config.target();
  }

  @Override
  public Admission admit(AdmissionRequest request) {
    return gate.admit(request);
  }

  @Override
  public boolean release(Grant grant, Cost actual) {
    return gate.release(grant, actual);
  }

  /** Hands the provider's answer to the shared state (or to the local gate during an outage). */
  @Override
  public void feedback(@Nullable Grant grant, ProviderSignal signal) {
    gate.feedback(grant, signal);
  }

  /**
   * Charges the shared state with what was admitted without it (see {@link Gate#charge}); during an
   * outage the fail-open wrapper keeps it for its hand-back.
   */
  @Override
  public void charge(Cost spent) {
    gate.charge(spent);
  }

  /**
   * The {@link Policy#sendWithin()} of the policy last read from Redis, or of the configured one
   * before the first connection; null when neither is known.
   */
  @Override
  public @Nullable Duration sendWithin() {
    RedisGate connected = redis;
    Policy policy = connected != null ? connected.policy() : config.initialPolicy();
    return policy == null ? null : policy.sendWithin();
  }

  /**
   * Waits up to {@code timeout} for the first connection, for callers that would rather start gated
   * than decide by the fail mode for the first moments; never throws for an unreachable Redis.
   *
   * @return whether the gate has reached Redis
   */
  public boolean awaitConnected(Duration timeout) {
    try {
      return firstConnection.await(timeout.toNanos(), TimeUnit.NANOSECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return connected();
    }
  }

  /** Whether the gate has reached Redis (it may be unavailable again since). */
  public boolean connected() {
    return redis != null;
  }

  /**
   * The fail-open wrapper, for its counters (failures, decisions taken without Redis); give it to
   * {@code MeteredGate.builder} so that the metrics count them, and keep this gate to close it.
   */
  public FailOpenGate failOpen() {
    return gate;
  }

  /** The workers of this target alive when Redis last answered a heartbeat (this one included). */
  public int liveWorkers() {
    return liveWorkers.count();
  }

  /** The strict gate once connected. @throws NoSuchElementException before the first connection */
  public RedisGate redisGate() {
    RedisGate connected = redis;
    if (connected == null) {
      throw new NoSuchElementException(lastConnectFailure);
    }
    return connected;
  }

  @Override
  public void close() {
    RedisGate connected;
    synchronized (this) {
      closed = true;
      connected = redis;
    }
    Future<?> beating = heartbeats;
    if (beating != null) {
      beating.cancel(true);
    }
    background.shutdownNow();
    try {
      // A heartbeat under way sends its command before the removal below, not after it.
      background.awaitTermination(1, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    if (connected != null) {
      liveWorkers.leave(connected.connection());
      connected.close();
    }
  }

  /**
   * How far back a worker's calls decided without Redis are charged to it on return: the longest a
   * worker can go on deciding by its mode after Redis is back and another worker has returned — a
   * reconnect attempt ({@code Connection.RECONNECT_AT_MOST}), a probe interval and a command
   * timeout (1.2 s by default). See {@link FailOpenGate}'s hand-back for why that, and not a whole
   * provider period.
   */
  static Duration handBack(RedisGateConfig config) {
    return Connection.RECONNECT_AT_MOST.plus(PROBE).plus(config.commandTimeout());
  }

  /**
   * {@code policy} with every cap divided between {@code workers}: one worker's share in {@code
   * LOCAL} mode. Bursts are kept whole, so that a call the shared state would take at once also
   * fits a worker's empty-started local gate.
   *
   * <p><b>At least one request per window.</b> A worker never gets a zero cap: where the policy has
   * a safe window {@code P}, the requests cap's share is raised, when the division leaves it below,
   * to one request per {@code P} ({@code 1/P} per second). So with more live workers than the cap
   * allows requests in a window (30 a minute between 60 workers), each worker may still send one
   * per window, and the workers together up to one each, above the cap: a worker left unable to
   * send at all would fail every call of the outage. Without a safe window the share is a refill
   * rate above zero and every worker keeps the whole burst, so it is not raised. Other dimensions
   * are divided as they are.
   *
   * @throws IllegalArgumentException when {@code workers} is below 1
   */
  public static Policy share(Policy policy, int workers) {
    if (workers < 1) {
      throw new IllegalArgumentException("workers must be at least 1, got " + workers);
    }
    Policy share = policy;
    Duration window = policy.safeWindow();
    if (workers > 1) {
      for (Dimension d : policy.dimensions()) {
        double cap = d.capPerSecond() / workers;
        if (d.name().equals(Dimension.REQUESTS) && window != null) {
          cap = Math.max(cap, oneRequestPer(window));
        }
        share = share.withDimension(new Dimension(d.name(), cap, d.burst()));
      }
    }
    return share;
  }

  /**
   * The least rate, per second, that allows one request in {@code window}, as {@link Policy} checks
   * it ({@code rate · window / 1 s ≥ 1}): {@code 1/window}, raised by a few ulps where rounding
   * would leave the product below one.
   */
  static double oneRequestPer(Duration window) {
    long nanos = window.toNanos();
    double rate = 1e9 / nanos;
    while (rate * nanos / 1e9 < 1) {
      rate = Math.nextUp(rate);
    }
    return rate;
  }

  /**
   * The local gate of an outage in LOCAL mode: empty buckets with this worker's share of the policy
   * last read from Redis (or the configured one); without either, a gate that defers every call.
   */
  private Gate localGate() {
    RedisGate connected = redis;
    Policy policy = connected != null ? connected.policy() : config.initialPolicy();
    if (policy == null) {
      return new NoCapsKnown(config.target());
    }
    return localGate(policy, liveWorkers.count());
  }

  /**
   * The local gate of an outage for one of {@code workers}: empty buckets with its {@linkplain
   * #share share} of {@code policy}, except that a call the share can never take but the whole
   * policy can is deferred for a {@link #RETRY}, keeping its booking, instead of rejected (see
   * {@link WaitsForRedis}).
   */
  static Gate localGate(Policy policy, int workers) {
    return new WaitsForRedis(
        policy, InMemoryGate.createEmpty(share(policy, workers), Ticker.system()));
  }

  /** One connection attempt; on failure the next is scheduled, on success the heartbeats start. */
  private void connect() {
    if (closed) {
      return;
    }
    try {
      RedisGate connected = RedisGate.connect(config);
      synchronized (this) {
        if (closed) {
          connected.close();
          return;
        }
        redis = connected;
      }
      firstConnection.countDown();
      LOG.info(
          "connected to Redis at {} for target {}", Redaction.url(config.url()), config.target());
      heartbeats =
          background.scheduleWithFixedDelay(
              reported(this::heartbeat),
              0,
              LiveWorkers.HEARTBEAT.toMillis(),
              TimeUnit.MILLISECONDS);
    } catch (RuntimeException e) {
      if (closed) {
        return; // the attempt was cut short by close(): nothing to report or retry
      }
      String failure = Redaction.scrub(String.valueOf(e.getMessage()), config.url());
      lastConnectFailure = failure;
      if (reportedFailures.size() >= REPORTED_CAUSES) {
        reportedFailures.clear();
      }
      if (reportedFailures.add(failure)) {
        LOG.warn(
            "target {}: {}; deciding {} until Redis answers (retrying every {} ms)",
            config.target(),
            failure,
            config.whenUnavailable(),
            RETRY.toMillis());
      } else {
        LOG.debug("target {}: {} (again)", config.target(), failure);
      }
      try {
        // What the attempt throws is logged by reported(): the future has nothing more to say.
        Future<?> unused =
            background.schedule(reported(this::connect), RETRY.toMillis(), TimeUnit.MILLISECONDS);
      } catch (RejectedExecutionException closedMeanwhile) {
        // close() has stopped the background work since the check above.
      }
    }
  }

  /**
   * {@code task} with whatever escapes it logged: the executor would keep it in a future no one
   * reads, and would not run a periodic task again after it, leaving the gate in its fallback (or
   * the worker count stale) without a word.
   */
  private Runnable reported(Runnable task) {
    return () -> {
      try {
        task.run();
      } catch (RuntimeException | Error e) {
        LOG.error("target {}: the Redis gate's background work stopped", config.target(), e);
        throw e;
      }
    };
  }

  private void heartbeat() {
    RedisGate connected = redis;
    if (connected != null) {
      liveWorkers.beat(connected.connection());
    }
  }

  /**
   * LOCAL's local gate while no policy is known: every call deferred for a {@link #RETRY}, keeping
   * its booking, as CLOSED would (there are no caps to share).
   */
  private record NoCapsKnown(String target) implements Gate {
    @Override
    public Admission admit(AdmissionRequest request) {
      return new Admission.Deferred(
          RETRY, request.booking() == null ? "" : Objects.requireNonNull(request.booking()));
    }

    @Override
    public boolean release(Grant grant, Cost actual) {
      return false;
    }
  }

  /**
   * LOCAL's gate of one outage: this worker's share, except for a call the share can never take
   * whole (larger than the share's safe-window allowance, the cap's divided between the workers,
   * while the bursts are kept whole) that the whole policy can take. The share would reject it; it
   * is deferred for a {@link #RETRY} instead, keeping its booking, as in CLOSED, so that it goes
   * once Redis answers (or expires when its caller's wait budget is spent). Admitting it locally,
   * even one at a time, would let every worker send one such call per window, above the cap.
   */
  private record WaitsForRedis(Policy whole, Gate share) implements Gate {
    @Override
    public String target() {
      return share.target();
    }

    @Override
    public Admission admit(AdmissionRequest request) {
      Admission answer = share.admit(request);
      if (answer instanceof Admission.Rejected rejected
          && rejected.reason() == RejectReason.NEVER_FITS
          && RequestCheck.of(whole, request).rejection() == null) {
        return new Admission.Deferred(
            RETRY, request.booking() == null ? "" : Objects.requireNonNull(request.booking()));
      }
      return answer;
    }

    @Override
    public boolean release(Grant grant, Cost actual) {
      return share.release(grant, actual);
    }

    @Override
    public void feedback(@Nullable Grant grant, ProviderSignal signal) {
      share.feedback(grant, signal);
    }

    @Override
    public void charge(Cost spent) {
      share.charge(spent);
    }
  }

  /** The strict gate once connected; before that every call fails as an unavailable state would. */
  private final class Connected implements Gate {
    @Override
    public String target() {
      return config.target();
    }

    @Override
    public Admission admit(AdmissionRequest request) {
      return connected().admit(request);
    }

    @Override
    public boolean release(Grant grant, Cost actual) {
      return connected().release(grant, actual);
    }

    @Override
    public void feedback(@Nullable Grant grant, ProviderSignal signal) {
      connected().feedback(grant, signal);
    }

    @Override
    public void charge(Cost spent) {
      connected().charge(spent);
    }

    private RedisGate connected() {
      RedisGate connected = redis;
      if (connected == null) {
        throw new RedisConnectionException(lastConnectFailure);
      }
      return connected;
    }
  }
}
