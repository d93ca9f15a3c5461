package io.backpressure.redis;

import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.SslOptions;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.Delay;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One Lettuce connection (standalone, Sentinel or Cluster) and the scripts run over it.
 * Thread-safe: Lettuce multiplexes concurrent commands over the one connection.
 *
 * <p>While the server is unreachable, commands fail at once instead of queueing (so a fail-open
 * wrapper decides without waiting), and the client reconnects in the background with a delay that
 * grows from 10 ms to at most {@link #RECONNECT_AT_MOST} (100 ms), so gating resumes within about a
 * tenth of a second of the server's return.
 *
 * <p>On a Redis Cluster the client routes each script by its keys, which all carry the target's
 * hash tag (see {@link Keys}), so a target's every step runs on the master of its slot. It follows
 * the topology as it changes: a {@code MOVED} or {@code ASK} redirect, a reconnect attempt or a
 * node that stopped answering triggers a refresh at once (adaptive refresh, at most one per {@link
 * #ADAPTIVE_REFRESH_EVERY}), and the topology is re-read every {@link #PERIODIC_REFRESH}
 * regardless, from every known node. When a master dies, its commands fail at once (rejected while
 * disconnected) until the cluster has promoted a replica and a refresh has found it; a fail-open
 * wrapper decides in between. The promoted replica may not have the scripts cached: {@link #run}
 * answers {@code NOSCRIPT} with {@code EVAL}, which loads them there.
 */
final class Connection implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(Connection.class);

  /**
   * The longest pause between two reconnect attempts. Short, for a gate: every moment a worker is
   * not reconnected after the server's return it decides by its fail-open mode, and in a group of
   * workers the last one back sets how long the others share the state with its local or ungated
   * calls (the hand-back in {@link io.backpressure.core.FailOpenGate} covers that stagger). An
   * attempt is one TCP connect to a server that is down: ten a second cost it nothing.
   */
  static final Duration RECONNECT_AT_MOST = Duration.ofMillis(100);

  private static final Delay RECONNECT =
      Delay.exponential(Duration.ofMillis(10), RECONNECT_AT_MOST, 2, TimeUnit.MILLISECONDS);

  /** How often a cluster's topology is re-read even when nothing suggests it changed. */
  static final Duration PERIODIC_REFRESH = Duration.ofSeconds(10);

  /** The least time between two refreshes triggered by redirects or failures. */
  static final Duration ADAPTIVE_REFRESH_EVERY = Duration.ofMillis(500);

  private final ClientResources resources;
  private final AbstractRedisClient client;
  private final StatefulConnection<String, String> connection;
  private final RedisClusterAsyncCommands<String, String> commands;
  private final Duration timeout;

  /**
   * Whether the admission and release steps run as functions of {@link Script#LIBRARY} ({@code
   * FCALL}): on a standalone or Sentinel server that accepted the library at connect (Redis 7,
   * Valkey); else, and on a cluster, they run with {@code EVALSHA}.
   */
  private volatile boolean functions;

  private Connection(
      ClientResources resources,
      AbstractRedisClient client,
      StatefulConnection<String, String> connection,
      RedisClusterAsyncCommands<String, String> commands,
      Duration timeout) {
    this.resources = resources;
    this.client = client;
    this.connection = connection;
    this.commands = commands;
    this.timeout = timeout;
  }

  /**
   * Connects and loads the scripts; throws a Lettuce {@link RedisException} whose message names the
   * cause (refused, timeout, authentication, certificate, host name) if the server is unreachable.
   */
  static Connection open(RedisGateConfig config) {
    RedisURI uri = uri(config.url(), config.connectTimeout());
    ClientResources resources =
        ClientResources.builder()
            .ioThreadPoolSize(2)
            .computationThreadPoolSize(2)
            .reconnectDelay(RECONNECT)
            .build();
    SocketOptions socket =
        SocketOptions.builder().connectTimeout(config.connectTimeout()).keepAlive(true).build();
    TimeoutOptions timeouts = TimeoutOptions.enabled(config.commandTimeout());
    SslOptions ssl = sslOptions(config.tls());
    AbstractRedisClient client = null;
    try {
      Connection c;
      if (config.cluster()) {
        List<RedisURI> seeds =
            config.clusterSeeds().isEmpty()
                ? List.of(uri)
                : config.clusterSeeds().stream()
                    .map(seed -> uri(seed, config.connectTimeout()))
                    .toList();
        RedisClusterClient cluster = RedisClusterClient.create(resources, seeds);
        cluster.setOptions(
            ClusterClientOptions.builder()
                .autoReconnect(true)
                .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
                .socketOptions(socket)
                .sslOptions(ssl)
                .timeoutOptions(timeouts)
                .topologyRefreshOptions(
                    ClusterTopologyRefreshOptions.builder()
                        .enableAllAdaptiveRefreshTriggers()
                        .adaptiveRefreshTriggersTimeout(ADAPTIVE_REFRESH_EVERY)
                        .refreshTriggersReconnectAttempts(1)
                        .enablePeriodicRefresh(PERIODIC_REFRESH)
                        .dynamicRefreshSources(true)
                        .closeStaleConnections(true)
                        .build())
                .build());
        client = cluster;
        var connection = cluster.connect(StringCodec.UTF8);
        c =
            new Connection(
                resources, cluster, connection, connection.async(), config.commandTimeout());
      } else {
        RedisClient standalone = RedisClient.create(resources, uri);
        standalone.setOptions(
            ClientOptions.builder()
                .autoReconnect(true)
                .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
                .socketOptions(socket)
                .sslOptions(ssl)
                .timeoutOptions(timeouts)
                .build());
        client = standalone;
        var connection = standalone.connect(StringCodec.UTF8);
        c =
            new Connection(
                resources, standalone, connection, connection.async(), config.commandTimeout());
      }
      c.loadScripts(config.connectTimeout(), !config.cluster());
      return c;
    } catch (RuntimeException e) {
      shutDown(client, resources);
      throw ConnectFailure.describe(config.url(), e);
    }
  }

  /**
   * {@code url} parsed; its timeout bounds the handshake (commands get theirs from TimeoutOptions).
   */
  private static RedisURI uri(String url, Duration connectTimeout) {
    RedisURI uri = RedisURI.create(url);
    uri.setTimeout(connectTimeout);
    return uri;
  }

  /** JDK TLS with the configured CA and client certificate files, or Lettuce's defaults. */
  private static SslOptions sslOptions(@Nullable TlsFiles tls) {
    SslOptions.Builder ssl = SslOptions.builder().jdkSslProvider();
    if (tls != null && tls.trustedCertificates() != null) {
      ssl.trustManager(tls.trustedCertificates().toFile());
    }
    Path certificate = tls == null ? null : tls.clientCertificate();
    Path key = tls == null ? null : tls.clientKey();
    if (certificate != null && key != null) {
      ssl.keyManager(certificate.toFile(), key.toFile(), null);
    }
    return ssl.build();
  }

  /** The commands, for plain reads. */
  RedisClusterAsyncCommands<String, String> commands() {
    return commands;
  }

  /**
   * Runs {@code script}: a step of the function library with {@code FCALL} where the server took it
   * (loading the library again if the server lost it: restarted, flushed, a promoted replica
   * without it), else with {@code EVALSHA}; if the server does not know the script, runs it once
   * with {@code EVAL}, which caches it again.
   */
  CompletableFuture<List<Object>> run(Script script, String[] keys, String... args) {
    if (functions && script.function() != null) {
      return fcall(script, keys, args)
          .exceptionallyCompose(
              error -> {
                String message = String.valueOf(cause(error).getMessage());
                if (message.contains("Function not found")) {
                  return commands
                      .functionLoad(Script.LIBRARY, true)
                      .toCompletableFuture()
                      .thenCompose(loaded -> fcall(script, keys, args));
                }
                if (message.startsWith("ERR unknown command")) {
                  functions = false;
                  return run(script, keys, args);
                }
                return CompletableFuture.failedFuture(cause(error));
              });
    }
    CompletableFuture<List<Object>> first =
        commands
            .<List<Object>>evalsha(script.sha(), ScriptOutputType.MULTI, keys, args)
            .toCompletableFuture();
    return first.exceptionallyCompose(
        error -> {
          Throwable cause = cause(error);
          if (cause instanceof RedisNoScriptException
              || (cause.getMessage() != null && cause.getMessage().startsWith("NOSCRIPT"))) {
            return commands
                .<List<Object>>eval(script.text(), ScriptOutputType.MULTI, keys, args)
                .toCompletableFuture();
          }
          return CompletableFuture.failedFuture(cause);
        });
  }

  private CompletableFuture<List<Object>> fcall(Script script, String[] keys, String[] args) {
    return commands
        .<List<Object>>fcall(script.function(), ScriptOutputType.MULTI, keys, args)
        .toCompletableFuture();
  }

  private static Throwable cause(Throwable error) {
    return error instanceof CompletionException && error.getCause() != null
        ? error.getCause()
        : error;
  }

  /**
   * Waits for {@code future}; a failure comes out as the Lettuce {@link RedisException} that caused
   * it (never an {@link IllegalArgumentException}, which a fail-open wrapper would pass through).
   */
  <T> T await(CompletableFuture<T> future) {
    try {
      // Each command times out on its own (TimeoutOptions); this only bounds a chain of a few of
      // them plus the client's own work, which on a starved machine can take seconds at first use.
      return future.get(timeout.toNanos() * 4 + TimeUnit.SECONDS.toNanos(10), TimeUnit.NANOSECONDS);
    } catch (ExecutionException e) {
      Throwable cause = e.getCause() == null ? e : e.getCause();
      if (cause instanceof RedisException redis) {
        throw redis;
      }
      throw new RedisException(String.valueOf(cause.getMessage()), cause);
    } catch (TimeoutException e) {
      future.cancel(true);
      throw new RedisException(
          "no answer from Redis within " + timeout.multipliedBy(4).plusSeconds(10), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new RedisException("interrupted while waiting for Redis", e);
    }
  }

  /**
   * Loads the scripts, and with {@code library} the function library, which a server without
   * functions (before Redis 7), or an ACL user without {@code FUNCTION}, refuses: the steps then
   * run with {@code EVALSHA}. Lettuce may report the connection open a moment before its endpoint
   * accepts commands; until the connect timeout, "not connected" means "try again".
   */
  private void loadScripts(Duration connectTimeout, boolean library) {
    long deadline = System.nanoTime() + connectTimeout.toNanos();
    for (Script script : List.of(Script.ADMIT, Script.RELEASE, Script.APPLY, Script.LEVELS)) {
      retryUntilConnected(deadline, () -> commands.scriptLoad(script.text()));
    }
    if (library) {
      try {
        retryUntilConnected(deadline, () -> commands.functionLoad(Script.LIBRARY, true));
        functions = true;
      } catch (RedisException e) {
        functions = false;
        LOG.warn(
            "Redis refused the gate's function library ({}); admissions and releases run with"
                + " EVALSHA, which costs more server time per call",
            e.getMessage());
      }
    }
  }

  private void retryUntilConnected(long deadline, Supplier<RedisFuture<String>> command) {
    while (true) {
      try {
        await(command.get().toCompletableFuture());
        return;
      } catch (RedisException e) {
        if (!connection.isOpen()
            || System.nanoTime() > deadline
            || !String.valueOf(e.getMessage()).contains("not connected")) {
          throw e;
        }
        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
      }
    }
  }

  @Override
  public void close() {
    connection.close();
    shutDown(client, resources);
  }

  /**
   * Waits at most 3 s for {@code client} to shut down, interrupted or not, and says whether the
   * thread was interrupted meanwhile. Lettuce's own {@code shutdown} waits for its future without a
   * bound; a cluster client whose topology refresh was handed to the computation threads stopped
   * before never completes it.
   */
  private static boolean awaitClientShutdown(AbstractRedisClient client) {
    CompletableFuture<Void> done = client.shutdownAsync(0, 2, TimeUnit.SECONDS);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
    boolean interrupted = false;
    while (true) {
      try {
        done.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
        return interrupted;
      } catch (InterruptedException e) {
        interrupted = true;
      } catch (TimeoutException e) {
        LOG.warn("the Redis client did not shut down within 3 s");
        return interrupted;
      } catch (ExecutionException e) {
        LOG.warn("the Redis client did not shut down cleanly", e.getCause());
        return interrupted;
      }
    }
  }

  /**
   * Stops {@code client} and its resources in the order that lets work still under way end on
   * threads that are still running: the timer first (waiting for a timeout that is firing), then
   * the computation threads (running what the timer handed them), then the client, which closes its
   * channels and releases its I/O event loops, and the resources' I/O event loops last. Each wait
   * is bounded (2 s, as the client's own shutdown) and made even on an interrupted thread (a gate
   * closed while it connects), or one interrupted meanwhile, whose interrupt is kept for its
   * caller; one that does not end in time, or fails, is logged.
   *
   * <p>Why the order: a connect that failed or was given up at its timeout leaves Lettuce's
   * handshake timeout armed; when it fires it closes the channel through the channel's I/O event
   * loop. With everything stopped at once and no quiet period, that close could reach a loop that
   * had already terminated, which Netty logs at ERROR with a stack trace ("Failed to submit a
   * listener notification task. Event loop shut down?") while Redis was merely down.
   */
  private static void shutDown(@Nullable AbstractRedisClient client, ClientResources resources) {
    boolean interrupted = Thread.interrupted();
    try {
      resources.timer().stop();
      if (!resources
          .eventExecutorGroup()
          .shutdownGracefully(0, 2, TimeUnit.SECONDS)
          .awaitUninterruptibly(3, TimeUnit.SECONDS)) {
        LOG.warn("the Redis client's computation threads did not shut down within 3 s");
      }
      if (client != null) {
        interrupted |= awaitClientShutdown(client);
      }
      var loops = resources.shutdown(0, 2, TimeUnit.SECONDS);
      if (!loops.awaitUninterruptibly(3, TimeUnit.SECONDS)) {
        LOG.warn("the Redis client's event loops did not shut down within 3 s");
      } else if (!loops.isSuccess() || !Boolean.TRUE.equals(loops.getNow())) {
        LOG.warn("the Redis client's event loops did not shut down cleanly", loops.cause());
      }
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
