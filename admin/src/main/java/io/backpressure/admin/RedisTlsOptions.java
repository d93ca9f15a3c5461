package io.backpressure.admin;

import io.backpressure.redis.TlsFiles;
import io.lettuce.core.SslOptions;
import java.nio.file.Files;
import java.nio.file.Path;
import picocli.CommandLine.Option;

/**
 * The TLS files of a {@code rediss://} server, as every command that connects to Redis takes them
 * ({@code --redis-ca}, {@code --redis-cert}, {@code --redis-key}): a picocli mixin ({@code @Mixin
 * RedisTlsOptions tls}). The files go to a gate's configuration ({@link #files()}) or to a plain
 * Lettuce client ({@link #sslOptions()}). Not thread-safe: picocli fills it once before the command
 * runs.
 */
public final class RedisTlsOptions {

  /** One option at fault and what is wrong with it. */
  public record Problem(String option, String message) {}

  @Option(
      names = "--redis-ca",
      paramLabel = "FILE",
      description =
          "PEM file of the CA(s) to trust for a rediss:// URL (default: the JVM's trust store).")
  Path caFile;

  @Option(
      names = "--redis-cert",
      paramLabel = "FILE",
      description =
          "PEM client certificate for a rediss:// server that requires one (with --redis-key).")
  Path certFile;

  @Option(
      names = "--redis-key",
      paramLabel = "FILE",
      description = "PEM (PKCS#8) private key of --redis-cert.")
  Path keyFile;

  /** What is wrong with the options, naming the option, or null when nothing is. */
  public Problem problem() {
    if ((certFile == null) != (keyFile == null)) {
      return new Problem(
          certFile == null ? "--redis-cert" : "--redis-key",
          "--redis-cert and --redis-key go together");
    }
    for (Path file : new Path[] {caFile, certFile, keyFile}) {
      if (file != null && !Files.isReadable(file)) {
        String option =
            file == caFile ? "--redis-ca" : file == certFile ? "--redis-cert" : "--redis-key";
        return new Problem(option, option + " must name a readable PEM file, got '" + file + "'");
      }
    }
    return null;
  }

  /** The files given, or null for none; call after {@link #problem()} found nothing wrong. */
  public TlsFiles files() {
    return caFile == null && certFile == null ? null : new TlsFiles(caFile, certFile, keyFile);
  }

  /**
   * The same files for a Lettuce client: JDK TLS trusting the CA file, with the client certificate.
   */
  public SslOptions sslOptions() {
    SslOptions.Builder ssl = SslOptions.builder().jdkSslProvider();
    if (caFile != null) {
      ssl.trustManager(caFile.toFile());
    }
    if (certFile != null && keyFile != null) {
      ssl.keyManager(certFile.toFile(), keyFile.toFile(), null);
    }
    return ssl.build();
  }
}
