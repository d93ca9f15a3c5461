package io.backpressure.admin;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicLong;
import redis.embedded.RedisServer;

/**
 * The Redis server of this module's tests: the one {@code BACKPRESSURE_REDIS_URL} names, else
 * {@code redis-server} from the PATH on a free loopback port, else the binary shipped in
 * embedded-redis. A server started here has no persistence and stops when the JVM exits. Tests keep
 * apart by a fresh key prefix each.
 */
final class TestRedis {
  private static final AtomicLong PREFIXES = new AtomicLong();
  private static String url;

  private TestRedis() {}

  static synchronized String url() {
    if (url == null) {
      String external = System.getenv("BACKPRESSURE_REDIS_URL");
      url = external != null && !external.isBlank() ? external : start();
    }
    return url;
  }

  /** A key prefix no other test uses. */
  static String freshPrefix() {
    return "admin" + ProcessHandle.current().pid() + "x" + PREFIXES.incrementAndGet();
  }

  /** A loopback port nothing listens on (just released by the kernel). */
  static int closedPort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }

  private static String start() {
    try {
      int port = closedPort();
      Path dir = Files.createTempDirectory("bp-admin-redis");
      String binary = onPath("redis-server");
      if (binary != null) {
        Process process = new ProcessBuilder(binary, "--port", Integer.toString(port), "--bind", "127.0.0.1",
            "--save", "", "--appendonly", "no", "--dir", dir.toString())
            .redirectErrorStream(true)
            .redirectOutput(dir.resolve("redis.log").toFile())
            .start();
        Runtime.getRuntime().addShutdownHook(new Thread(process::destroy));
      } else {
        RedisServer server = RedisServer.newRedisServer().port(port).bind("127.0.0.1")
            .setting("save \"\"").setting("appendonly no").setting("dir " + dir).build();
        server.start();
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
          try {
            server.stop();
          } catch (IOException e) {
            throw new IllegalStateException(e);
          }
        }));
      }
      awaitPong(port);
      return "redis://127.0.0.1:" + port;
    } catch (IOException e) {
      throw new IllegalStateException("could not start a Redis server for the tests", e);
    }
  }

  private static String onPath(String name) {
    String path = System.getenv("PATH");
    if (path != null) {
      for (String dir : path.split(File.pathSeparator)) {
        File file = new File(dir, name);
        if (file.canExecute()) {
          return file.getAbsolutePath();
        }
      }
    }
    return null;
  }

  private static void awaitPong(int port) throws IOException {
    long deadline = System.nanoTime() + 10_000_000_000L;
    IOException last = null;
    while (System.nanoTime() < deadline) {
      try (Socket socket = new Socket("127.0.0.1", port)) {
        OutputStream out = socket.getOutputStream();
        out.write("PING\r\n".getBytes(StandardCharsets.US_ASCII));
        out.flush();
        InputStream in = socket.getInputStream();
        byte[] reply = in.readNBytes(5);
        if (new String(reply, StandardCharsets.US_ASCII).equals("+PONG")) {
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
