package io.backpressure.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lettuce.core.RedisConnectionException;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A failure to connect names its cause — refused, timed out, wrong password, untrusted certificate,
 * host name mismatch — instead of "Unable to connect", and never the password; with the CA file
 * given, TLS connects. Real redis-server processes (TLS with certificates made by openssl for this
 * test), all on loopback.
 */
class ConnectFailureIT {
  private static final String PASSWORD = "right-Pa55word";
  private final List<Process> servers = new ArrayList<>();
  @TempDir Path dir;

  @AfterEach
  void stopServers() throws InterruptedException {
    for (Process p : servers) {
      p.destroy();
      p.waitFor();
    }
  }

  /**
   * How long a connection may take where the server answers: a TLS handshake (an RSA key exchange)
   * and the first commands can take seconds on a loaded machine, and each failure tested here comes
   * as soon as the server has answered, so only a silent server waits this out.
   */
  private static final Duration ANSWERED_WITHIN = Duration.ofSeconds(30);

  /** The timeout of the silent server's test, which waits it out. */
  private static final Duration SILENT_FOR = Duration.ofMillis(800);

  private static RedisGateConfig config(String url, TlsFiles tls) {
    return config(url, tls, ANSWERED_WITHIN);
  }

  private static RedisGateConfig config(String url, TlsFiles tls, Duration timeout) {
    return RedisGateConfig.builder(url)
        .target("connect/model")
        .connectTimeout(timeout)
        .commandTimeout(timeout)
        .tls(tls)
        .build();
  }

  private static String failure(String url, TlsFiles tls) {
    return failure(config(url, tls));
  }

  private static String failure(RedisGateConfig config) {
    Throwable thrown =
        org.assertj.core.api.Assertions.catchThrowable(
            () -> RedisPolicyStore.connect(config).close());
    assertThat(thrown).isInstanceOf(RedisConnectionException.class);
    return thrown.getMessage();
  }

  @Test
  void refused() throws IOException {
    int port = TestRedis.freePort();
    assertThat(failure("redis://:" + PASSWORD + "@127.0.0.1:" + port, null))
        .contains("connection refused", "127.0.0.1:" + port)
        .doesNotContain(PASSWORD);
  }

  @Test
  void timedOut() throws IOException {
    try (ServerSocket silent = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
      Thread acceptor =
          new Thread(
              () -> {
                List<Socket> held = new ArrayList<>();
                try {
                  while (true) {
                    held.add(silent.accept());
                  }
                } catch (IOException closed) {
                  // The test is over: let the held connections go too.
                  for (Socket socket : held) {
                    try {
                      socket.close();
                    } catch (IOException ignored) {
                      // Closing is all that is left to do.
                    }
                  }
                }
              });
      acceptor.setDaemon(true);
      acceptor.start();
      assertThat(failure(config("redis://127.0.0.1:" + silent.getLocalPort(), null, SILENT_FOR)))
          .contains("timed out");
    }
  }

  @Test
  void wrongPassword() throws Exception {
    int port = start("--port", "%d", "--requirepass", PASSWORD);
    assertThat(failure("redis://:wrong-Pa55word@127.0.0.1:" + port, null))
        .contains("authentication failed")
        .doesNotContain("wrong-Pa55word");
    try (RedisPolicyStore store =
        RedisPolicyStore.connect(config("redis://:" + PASSWORD + "@127.0.0.1:" + port, null))) {
      assertThat(store.read()).isEmpty();
    }
  }

  @Test
  void tls_untrustedCertificate_hostNameMismatch_andTheCaFileThatFixesIt() throws Exception {
    Path ca = certificates();
    int port =
        start(
            "--port",
            "0",
            "--tls-port",
            "%d",
            "--tls-cert-file",
            dir.resolve("server.crt").toString(),
            "--tls-key-file",
            dir.resolve("server.key").toString(),
            "--tls-ca-cert-file",
            ca.toString(),
            "--tls-auth-clients",
            "no");
    assertThat(failure("rediss://localhost:" + port, null)).contains("untrusted certificate");
    assertThat(failure("rediss://127.0.0.1:" + port, TlsFiles.trusting(ca)))
        .contains("host name mismatch");
    try (RedisPolicyStore store =
        RedisPolicyStore.connect(config("rediss://localhost:" + port, TlsFiles.trusting(ca)))) {
      assertThat(store.read()).isEmpty();
    }
    assertThatThrownBy(() -> TlsFiles.trusting(dir.resolve("missing.pem")))
        .hasMessageContaining("tls.trustedCertificates");
  }

  /** A CA and a server certificate for the name localhost only; returns the CA's file. */
  private Path certificates() throws Exception {
    Assumptions.assumeTrue(Files.isExecutable(Path.of("/usr/bin/openssl")), "needs openssl");
    Files.writeString(dir.resolve("san.ext"), "subjectAltName=DNS:localhost\n");
    run(
        "openssl",
        "req",
        "-x509",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-keyout",
        "ca.key",
        "-out",
        "ca.crt",
        "-days",
        "1",
        "-subj",
        "/CN=backpressure-test-ca");
    run(
        "openssl",
        "req",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-keyout",
        "server.key",
        "-out",
        "server.csr",
        "-subj",
        "/CN=localhost");
    run(
        "openssl",
        "x509",
        "-req",
        "-in",
        "server.csr",
        "-CA",
        "ca.crt",
        "-CAkey",
        "ca.key",
        "-CAcreateserial",
        "-out",
        "server.crt",
        "-days",
        "1",
        "-extfile",
        "san.ext");
    return dir.resolve("ca.crt");
  }

  private void run(String... command) throws Exception {
    Process p =
        new ProcessBuilder(command)
            .directory(dir.toFile())
            .redirectErrorStream(true)
            .redirectOutput(dir.resolve("openssl.log").toFile())
            .start();
    assertThat(p.waitFor()).as(String.join(" ", command)).isZero();
  }

  /** Starts redis-server on loopback with {@code args} ({@code %d}: the port); returns the port. */
  private int start(String... args) throws Exception {
    Assumptions.assumeTrue(TestRedis.serverOnPath(), "needs redis-server on the PATH");
    int port = TestRedis.freePort();
    List<String> command =
        new ArrayList<>(
            List.of(
                "redis-server",
                "--bind",
                "127.0.0.1",
                "-::1",
                "--save",
                "",
                "--appendonly",
                "no",
                "--dir",
                dir.toString()));
    for (String arg : args) {
      command.add(arg.replace("%d", Integer.toString(port)));
    }
    Process p =
        new ProcessBuilder(command)
            .redirectErrorStream(true)
            .redirectOutput(dir.resolve("redis.log").toFile())
            .start();
    servers.add(p);
    long deadline = System.nanoTime() + ANSWERED_WITHIN.toNanos();
    while (true) {
      try (Socket s = new Socket(InetAddress.getLoopbackAddress(), port)) {
        return port;
      } catch (IOException notYet) {
        assertThat(System.nanoTime())
            .as("redis-server listening: " + Files.readString(dir.resolve("redis.log")))
            .isLessThan(deadline);
        Thread.sleep(20);
      }
    }
  }
}
