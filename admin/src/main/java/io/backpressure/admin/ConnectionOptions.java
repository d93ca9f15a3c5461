package io.backpressure.admin;

import io.backpressure.core.InvalidPolicyException;
import io.backpressure.core.spi.Redaction;
import io.backpressure.redis.RedisGateConfig;
import io.backpressure.redis.RedisPolicyStore;
import io.backpressure.redis.TlsFiles;
import io.lettuce.core.RedisException;
import java.time.Duration;
import java.util.NoSuchElementException;
import java.util.function.Function;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * The options every admin subcommand shares: where Redis is, the key prefix, the timeout and the
 * output format; and the one place where failures become exit codes.
 */
final class ConnectionOptions {
  private static final int MAX_TIMEOUT_MS = 600_000;

  @Option(
      names = "--redis",
      paramLabel = "URL",
      defaultValue = "${env:BACKPRESSURE_REDIS_URL:-redis://127.0.0.1:6379}",
      description =
          "Redis or Valkey URL: redis://host:port/db, rediss://user:pass@host:port, "
              + "redis-sentinel://… (default: ${DEFAULT-VALUE}; $BACKPRESSURE_REDIS_URL when set).")
  String url;

  @Option(
      names = "--redis-cluster",
      paramLabel = "HOST:PORT",
      split = ",",
      description =
          "Redis Cluster seed nodes, HOST:PORT,…; each takes the scheme and credentials of --redis "
              + "(whose host is then not used).")
  java.util.List<String> clusterSeeds;

  @Option(
      names = "--key-prefix",
      paramLabel = "PREFIX",
      defaultValue = "bp",
      description =
          "First part of every key, as the workers' gates use it (default: ${DEFAULT-VALUE}).")
  String keyPrefix;

  @Option(
      names = "--timeout-ms",
      paramLabel = "MS",
      defaultValue = "2000",
      converter = StrictNumbers.Whole.class,
      description =
          "Connect and command timeout in milliseconds, 1 to 600000 (default: ${DEFAULT-VALUE}).")
  int timeoutMs;

  @Option(names = "--json", description = "Print one JSON document on stdout, errors included.")
  boolean json;

  @Mixin RedisTlsOptions tls = new RedisTlsOptions();

  /**
   * Connects to {@code target}'s policy store, runs {@code action} and closes the connection.
   *
   * @throws AdminException for every failure, with its exit code: a bad option or value, or a
   *     change that kept conflicting with other writers (1), an unreachable or failing server (3),
   *     a target with no policy (4)
   */
  <T> T withStore(String target, Function<RedisPolicyStore, T> action) {
    if (timeoutMs < 1 || timeoutMs > MAX_TIMEOUT_MS) {
      throw AdminException.invalid(
          "--timeout-ms",
          "--timeout-ms must be in the range [1, " + MAX_TIMEOUT_MS + "], got " + timeoutMs);
    }
    RedisGateConfig config;
    try {
      RedisGateConfig.Builder builder = RedisGateConfig.builder(url);
      if (clusterSeeds != null && !clusterSeeds.isEmpty()) {
        builder.cluster(clusterSeeds);
      }
      config =
          builder
              .target(target)
              .keyPrefix(keyPrefix)
              .commandTimeout(Duration.ofMillis(timeoutMs))
              .connectTimeout(Duration.ofMillis(timeoutMs))
              .tls(tlsFiles())
              .build();
    } catch (IllegalArgumentException e) {
      String message = Redaction.scrub(e.getMessage(), url);
      String option =
          message.startsWith("url")
              ? "--redis"
              : message.startsWith("clusterSeeds")
                  ? "--redis-cluster"
                  : message.startsWith("keyPrefix") ? "--key-prefix" : "--target";
      throw AdminException.invalid(option, message);
    }
    try (RedisPolicyStore store = RedisPolicyStore.connect(config)) {
      return action.apply(store);
    } catch (InvalidPolicyException e) {
      throw AdminException.invalid(e.field(), e.getMessage());
    } catch (NoSuchElementException e) {
      throw new AdminException(
          AdminCommand.NO_POLICY,
          "target",
          e.getMessage() + "; write one with: admin apply -f FILE",
          e);
    } catch (IllegalStateException e) {
      throw new AdminException(AdminCommand.INVALID, null, e.getMessage(), e);
    } catch (RedisException e) {
      throw new AdminException(
          AdminCommand.UNREACHABLE,
          "--redis",
          Redaction.scrub("Redis at " + where() + " did not answer: " + e.getMessage(), url),
          null);
    } catch (AdminException e) {
      throw e;
    } catch (RuntimeException e) {
      throw new AdminException(
          AdminCommand.UNREACHABLE, "--redis", Redaction.scrub("failed: " + e, url), null);
    }
  }

  /** The server named in messages: the URL, or the cluster seeds. */
  private String where() {
    return clusterSeeds == null || clusterSeeds.isEmpty()
        ? url
        : "cluster " + String.join(",", clusterSeeds);
  }

  /** The TLS files given, or null; each must be readable. */
  private TlsFiles tlsFiles() {
    RedisTlsOptions.Problem problem = tls.problem();
    if (problem != null) {
      throw AdminException.invalid(problem.option(), problem.message());
    }
    return tls.files();
  }
}
