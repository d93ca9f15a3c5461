package io.backpressure.redis;

import java.nio.file.Files;
import java.nio.file.Path;
import org.jspecify.annotations.Nullable;

/**
 * PEM files for a {@code rediss://} connection: the certificate authorities to trust instead of the
 * JVM's default trust store, and a client certificate with its private key for servers that require
 * one (mutual TLS). The server's certificate and host name are always verified.
 *
 * <p>A value, safe to read from any thread.
 *
 * @param trustedCertificates CA certificates (PEM), or null for the JVM's trust store
 * @param clientCertificate the client's certificate chain (PEM), or null for none
 * @param clientKey the client's private key (PKCS#8 PEM), given exactly when the certificate is
 */
public record TlsFiles(
    @Nullable Path trustedCertificates,
    @Nullable Path clientCertificate,
    @Nullable Path clientKey) {

  public TlsFiles {
    if ((clientCertificate == null) != (clientKey == null)) {
      throw new IllegalArgumentException(
          "tls: a client certificate needs its key and a key its certificate");
    }
    readable("tls.trustedCertificates", trustedCertificates);
    readable("tls.clientCertificate", clientCertificate);
    readable("tls.clientKey", clientKey);
  }

  /** Trust only the CAs in {@code caFile} (PEM). */
  public static TlsFiles trusting(Path caFile) {
    return new TlsFiles(caFile, null, null);
  }

  private static void readable(String field, @Nullable Path file) {
    if (file != null && !Files.isReadable(file)) {
      throw new IllegalArgumentException(
          field + " must be a readable PEM file, got '" + file + "'");
    }
  }
}
