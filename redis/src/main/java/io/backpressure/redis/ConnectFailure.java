package io.backpressure.redis;

import io.backpressure.core.spi.Redaction;
import io.lettuce.core.RedisConnectionException;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisURI;
import java.net.ConnectException;
import java.net.UnknownHostException;
import java.nio.channels.ClosedChannelException;
import java.security.cert.CertPathBuilderException;
import java.security.cert.CertPathValidatorException;
import java.security.cert.CertificateException;
import java.util.Locale;
import java.util.concurrent.TimeoutException;
import javax.net.ssl.SSLException;

/**
 * Turns a failure to connect into a message that names its cause (refused, unknown host, timeout, a
 * connection closed before the handshake, authentication, an untrusted certificate, a host name the
 * certificate does not cover, a missing ACL permission) instead of Lettuce's "Unable to connect",
 * with the URL's credentials masked. Stateless.
 */
final class ConnectFailure {
  private ConnectFailure() {}

  /** A {@link RedisConnectionException} describing why connecting to {@code url} failed. */
  static RedisException describe(String url, Throwable failure) {
    String where = where(url);
    String cause = cause(failure, where);
    return new RedisConnectionException(
        Redaction.scrub("cannot connect to Redis at " + where + ": " + cause, url), failure);
  }

  private static String cause(Throwable failure, String where) {
    for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
      String message = String.valueOf(t.getMessage());
      String lower = message.toLowerCase(Locale.ROOT);
      if (message.startsWith("WRONGPASS")
          || message.startsWith("NOAUTH")
          || lower.contains("invalid password")
          || lower.contains("invalid username-password")) {
        return "authentication failed (wrong user name or password in the URL): " + message;
      }
      if (message.startsWith("NOPERM")) {
        return "the ACL user lacks a permission the gate needs (see the redis README): " + message;
      }
      if (t instanceof CertificateException && lower.contains("name")) {
        return "host name mismatch: the server's certificate does not name the host of the URL ("
            + message
            + ")";
      }
      if (t instanceof CertPathBuilderException
          || t instanceof CertPathValidatorException
          || lower.contains("pkix path")
          || lower.contains("unable to find valid certification path")) {
        return "untrusted certificate: the server's certificate is not signed by a trusted CA"
            + " (give the CA's PEM file with --redis-ca or TlsFiles)";
      }
      if (t instanceof SSLException && lower.contains("not an ssl/tls record")) {
        return "the server does not speak TLS on that port (use redis:// rather than rediss://)";
      }
      // Netty's connect timeout is a ConnectException too: look for a timeout first.
      if (t instanceof TimeoutException
          || lower.contains("timed out")
          || lower.contains("timeout")) {
        return "timed out (" + message + ")";
      }
      // Lettuce closes a channel whose handshake outlasts the connect timeout before the connect
      // itself has failed or succeeded; a server that drops new connections does the same.
      if (t instanceof ClosedChannelException) {
        return "the connection closed before Redis answered (the connect timeout passed, or the"
            + " server closed it)";
      }
      if (t instanceof ConnectException || lower.contains("connection refused")) {
        return "connection refused (nothing listens on " + where + ")";
      }
      if (t instanceof UnknownHostException) {
        return "unknown host (" + message + ")";
      }
    }
    Throwable root = failure;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    return root.getClass().getSimpleName() + ": " + root.getMessage();
  }

  private static String where(String url) {
    try {
      RedisURI uri = RedisURI.create(url);
      if (uri.getHost() != null) {
        return uri.getHost() + ":" + uri.getPort();
      }
    } catch (RuntimeException e) {
      // The URL was checked when the configuration was built; fall back to its redacted form.
    }
    return String.valueOf(Redaction.url(url));
  }
}
