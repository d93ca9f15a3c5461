package io.backpressure.bench.redis;

import io.backpressure.redis.TlsFiles;
import io.lettuce.core.SslOptions;
import java.nio.file.Files;
import java.nio.file.Path;
import picocli.CommandLine.Option;

/**
 * The TLS files of a {@code rediss://} server, as the admin command takes them ({@code --redis-ca},
 * {@code --redis-cert}, {@code --redis-key}): for the gate ({@link #files()}) and for the peers'
 * plain Lettuce client ({@link #sslOptions()}).
 */
final class TlsOptions {

  @Option(names = "--redis-ca", paramLabel = "FILE",
      description = "PEM file of the CA(s) to trust for a rediss:// URL (default: the JVM's trust store).")
  Path caFile;

  @Option(names = "--redis-cert", paramLabel = "FILE",
      description = "PEM client certificate for a rediss:// server that requires one (with --redis-key).")
  Path certFile;

  @Option(names = "--redis-key", paramLabel = "FILE", description = "PEM (PKCS#8) private key of --redis-cert.")
  Path keyFile;

  /** What is wrong with the options, naming the option, or null. */
  String problem() {
    if ((certFile == null) != (keyFile == null)) {
      return "--redis-cert and --redis-key go together";
    }
    for (Path file : new Path[] {caFile, certFile, keyFile}) {
      if (file != null && !Files.isReadable(file)) {
        String option = file == caFile ? "--redis-ca" : file == certFile ? "--redis-cert" : "--redis-key";
        return option + " must name a readable PEM file, got '" + file + "'";
      }
    }
    return null;
  }

  /** The files given, or null for none. */
  TlsFiles files() {
    return caFile == null && certFile == null ? null : new TlsFiles(caFile, certFile, keyFile);
  }

  /** The same files for a Lettuce client: JDK TLS trusting the CA file, with the client certificate. */
  SslOptions sslOptions() {
    SslOptions.Builder ssl = SslOptions.builder().jdkSslProvider();
    if (caFile != null) {
      ssl.trustManager(caFile.toFile());
    }
    if (certFile != null) {
      ssl.keyManager(certFile.toFile(), keyFile.toFile(), null);
    }
    return ssl.build();
  }
}
