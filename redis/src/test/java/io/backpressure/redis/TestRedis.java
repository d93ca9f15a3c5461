package io.backpressure.redis;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Assumptions;
import redis.embedded.RedisServer;

/**
 * A Redis server for the tests: the one {@code BACKPRESSURE_REDIS_URL} names, else {@code
 * redis-server} from the PATH started on a free loopback port, else the binary shipped in
 * embedded-redis. Servers started here run without persistence in a temporary directory and are
 * stopped when the JVM exits. Published in this module's test-jar for the tests of modules that
 * build on it.
 */
public final class TestRedis {
  private static final AtomicLong PREFIXES = new AtomicLong();
  private static TestRedis shared;

  private final String url;
  private final int port;
  private final Path dir;
  private Process process;
  private RedisServer embedded;
  private Connection connection;

  private TestRedis(String url, int port, Path dir) {
    this.url = url;
    this.port = port;
    this.dir = dir;
  }

  /** The server most tests share (tests keep apart by a fresh key prefix or target each). */
  public static synchronized TestRedis shared() {
    if (shared == null) {
      String external = System.getenv("BACKPRESSURE_REDIS_URL");
      shared =
          external != null && !external.isBlank()
              ? new TestRedis(external, -1, null)
              : startOwned();
    }
    return shared;
  }

  /**
   * A server of this test's own, which it may stop and restart; skips the test when only an
   * external server may be used.
   */
  static TestRedis owned() {
    String external = System.getenv("BACKPRESSURE_REDIS_URL");
    Assumptions.assumeTrue(
        external == null || external.isBlank(),
        "BACKPRESSURE_REDIS_URL points to an external server, which this test must not stop");
    return startOwned();
  }

  private static TestRedis startOwned() {
    try {
      int port = freePort();
      TestRedis redis =
          new TestRedis("redis://127.0.0.1:" + port, port, Files.createTempDirectory("bp-redis"));
      redis.start();
      Runtime.getRuntime().addShutdownHook(new Thread(redis::stop));
      return redis;
    } catch (IOException e) {
      throw new IllegalStateException("could not start a Redis server for the tests", e);
    }
  }

  public String url() {
    return url;
  }

  /**
   * A configuration for this server with a fresh key prefix (target and policy still to set). The
   * handshake may take 30 s: on a loaded machine it took longer than the default 2 s ("Connection
   * initialization timed out after 2 second(s)"), and it is not what these tests measure.
   */
  RedisGateConfig.Builder config() {
    return RedisGateConfig.builder(url)
        .keyPrefix(freshPrefix())
        .commandTimeout(java.time.Duration.ofSeconds(5))
        .connectTimeout(java.time.Duration.ofSeconds(30));
  }

  /** One connection the tests of this JVM share (gates over it do not close it). */
  synchronized Connection connection() {
    if (connection == null) {
      connection = Connection.open(config().target("any").build());
    }
    return connection;
  }

  /** A gate for {@code policy} over the shared connection, under a fresh key prefix. */
  RedisGate gate(io.backpressure.core.Policy policy, TimeSource time) {
    return RedisGate.over(connection(), false, config().policy(policy).timeSource(time).build());
  }

  /** A key prefix no other test uses, so tests on the shared server never see each other's keys. */
  public static String freshPrefix() {
    return "t" + ProcessHandle.current().pid() + "x" + PREFIXES.incrementAndGet();
  }

  /** Starts (or restarts, on the same port) a server this class owns. */
  synchronized void start() throws IOException {
    if (port < 0) {
      throw new IllegalStateException("an external server is not started here");
    }
    String binary = onPath("redis-server");
    if (binary != null) {
      process =
          new ProcessBuilder(
                  binary,
                  "--port",
                  Integer.toString(port),
                  "--bind",
                  "127.0.0.1",
                  "--save",
                  "",
                  "--appendonly",
                  "no",
                  "--dir",
                  dir.toString())
              .redirectErrorStream(true)
              .redirectOutput(dir.resolve("redis.log").toFile())
              .start();
    } else {
      if (embedded == null) {
        embedded =
            RedisServer.newRedisServer()
                .port(port)
                .bind("127.0.0.1")
                .setting("save \"\"")
                .setting("appendonly no")
                .setting("dir " + dir)
                .build();
      }
      embedded.start();
    }
    awaitPong();
  }

  /**
   * Freezes a server this class started from the PATH (SIGSTOP): it keeps its sockets but answers
   * nothing.
   */
  synchronized void pause() {
    signal("STOP");
  }

  /**
   * Lets a {@linkplain #pause() frozen} server run again (SIGCONT); it then works off what queued
   * up.
   */
  synchronized void resume() {
    signal("CONT");
  }

  /** Whether {@link #pause()} can work: the server is a redis-server process this class started. */
  synchronized boolean canPause() {
    return process != null;
  }

  private void signal(String name) {
    if (process == null) {
      throw new IllegalStateException("only a redis-server process started here can be signalled");
    }
    try {
      int exit =
          new ProcessBuilder("kill", "-" + name, Long.toString(process.pid()))
              .inheritIO()
              .start()
              .waitFor();
      if (exit != 0) {
        throw new IllegalStateException("kill -" + name + " exited with " + exit);
      }
    } catch (IOException e) {
      throw new IllegalStateException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Stops a server this class owns (its data is gone: no persistence). */
  synchronized void stop() {
    try {
      if (process != null) {
        process.destroy();
        process.waitFor();
        process = null;
      }
      if (embedded != null && embedded.isActive()) {
        embedded.stop();
      }
    } catch (IOException e) {
      throw new IllegalStateException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Whether {@code redis-server} is on the PATH (tests that start their own variant need it). */
  static boolean serverOnPath() {
    return onPath("redis-server") != null;
  }

  /** The executable {@code name} on the PATH, or null if there is none. */
  private static String onPath(String name) {
    String path = System.getenv("PATH");
    if (path == null) {
      return null;
    }
    for (String dir : path.split(File.pathSeparator)) {
      File file = new File(dir, name);
      if (file.canExecute()) {
        return file.getAbsolutePath();
      }
    }
    return null;
  }

  /** A loopback port nothing listens on (just released by the kernel). */
  public static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }

  private void awaitPong() throws IOException {
    long deadline = System.nanoTime() + 10_000_000_000L;
    IOException last = null;
    while (System.nanoTime() < deadline) {
      try (Socket socket = new Socket(InetAddress.getByAddress(new byte[] {127, 0, 0, 1}), port)) {
        OutputStream out = socket.getOutputStream();
        out.write("PING\r\n".getBytes(StandardCharsets.US_ASCII));
        out.flush();
        InputStream in = socket.getInputStream();
        byte[] reply = new byte[7];
        int n = in.readNBytes(reply, 0, 7);
        if (new String(reply, 0, n, StandardCharsets.US_ASCII).startsWith("+PONG")) {
          return;
        }
      } catch (IOException e) {
        last = e;
      }
      try {
        Thread.sleep(20);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IOException("interrupted", e);
      }
    }
    throw new IOException("Redis on port " + port + " did not answer PING", last);
  }
}
