package io.backpressure.redis;

import io.backpressure.core.spi.Redaction;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One worker's liveness entry for one target, and the number of the target's workers alive when
 * Redis last answered: what a {@code LOCAL} fallback divides the caps by.
 *
 * <p>Each {@link #beat} marks this worker alive for {@link #ALIVE_FOR} in {@code
 * <prefix>:{<target>}:workers} (a sorted set scored by "alive until", on the server's clock) and
 * reads how many entries are still alive; callers beat every {@link #HEARTBEAT}. A worker that has
 * never had an answer counts only itself.
 *
 * <p>Thread-safe: {@link #count()} may be read from any thread while one thread beats.
 */
final class LiveWorkers {
  private static final Logger LOG = LoggerFactory.getLogger(LiveWorkers.class);

  /** How often a connected worker says it is alive. */
  static final Duration HEARTBEAT = Duration.ofSeconds(1);

  /** How long a heartbeat keeps a worker counted as alive. */
  static final Duration ALIVE_FOR = Duration.ofSeconds(3);

  private final String target;
  private final String url;
  private final String key;
  private final String workerId = Ids.suffix();
  private final AtomicInteger count = new AtomicInteger(1);

  /** The last failure logged (touched by the beating thread only). */
  private String lastFailure = "";

  LiveWorkers(RedisGateConfig config) {
    this.target = config.target();
    this.url = config.url();
    this.key = Keys.of(config.keyPrefix(), config.target()).base() + "workers";
  }

  /** The target's workers alive at the last answered heartbeat, this one included (at least 1). */
  int count() {
    return count.get();
  }

  /**
   * Marks this worker alive and reads the count. An unavailable Redis keeps the last count without
   * a word (the fail-open wrapper reports outages); an error Redis answers with is logged at WARN
   * once until it changes or a heartbeat passes, since it leaves the count stale.
   */
  void beat(Connection connection) {
    try {
      List<Object> reply =
          connection.await(
              connection.run(
                  Script.ALIVE,
                  new String[] {key},
                  workerId,
                  Long.toString(ALIVE_FOR.toNanos() / 1_000)));
      count.set(Math.max(1, ((Long) reply.get(0)).intValue()));
      lastFailure = "";
    } catch (RedisCommandExecutionException e) {
      // Redis answered, with an error (a script or a key it refuses): no outage the fail-open
      // wrapper would report, yet the worker count goes stale.
      failed(e);
    } catch (RedisException e) {
      // Redis is unavailable: keep the last count; the fail-open wrapper reports the outage.
    } catch (RuntimeException e) {
      failed(e);
    }
  }

  /** Removes this worker's entry, best effort (a worker that cannot is dropped by its TTL). */
  void leave(Connection connection) {
    try {
      connection.await(connection.commands().zrem(key, workerId).toCompletableFuture());
    } catch (RuntimeException e) {
      LOG.debug("could not remove the liveness entry of worker {}: {}", workerId, e.toString());
    }
  }

  private void failed(RuntimeException e) {
    String failure = Redaction.scrub(String.valueOf(e), url);
    if (!failure.equals(lastFailure)) {
      lastFailure = failure;
      LOG.warn(
          "target {}: heartbeat failed, keeping {} live workers: {}", target, count(), failure);
    }
  }
}
