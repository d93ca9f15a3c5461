package io.backpressure.eval.real;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * A redis-server the harness starts and owns ({@code --redis auto}): from PATH, on a free port of
 * the loopback interface, without persistence, so the fault injector can stop, kill, restart and
 * flush it. Thread-safe.
 */
final class OwnedRedis implements AutoCloseable {
  private static final long READY_TIMEOUT_NANOS = 20_000_000_000L;
  private final int port;
  private final Path log;
  private Process process;

  private OwnedRedis(int port, Path log) {
    this.port = port;
    this.log = log;
  }

  /**
   * Starts a redis-server from PATH on a free loopback port and waits until it answers PING.
   *
   * @param log where its output goes (appended), or null to discard it
   * @throws IllegalStateException if redis-server is not on PATH or does not answer
   */
  static OwnedRedis start(Path log) {
    int port;
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      port = socket.getLocalPort();
    } catch (IOException e) {
      throw new IllegalStateException("no free port for redis-server", e);
    }
    OwnedRedis redis = new OwnedRedis(port, log);
    redis.launch();
    return redis;
  }

  /** {@code redis://127.0.0.1:PORT}. */
  String url() {
    return "redis://127.0.0.1:" + port;
  }

  private synchronized void launch() {
    ProcessBuilder builder =
        new ProcessBuilder(
            "redis-server",
            "--port",
            Integer.toString(port),
            "--bind",
            "127.0.0.1",
            "--save",
            "",
            "--appendonly",
            "no");
    builder
        .redirectErrorStream(true)
        .redirectOutput(
            log == null
                ? ProcessBuilder.Redirect.DISCARD
                : ProcessBuilder.Redirect.appendTo(log.toFile()));
    try {
      process = builder.start();
    } catch (IOException e) {
      throw new IllegalStateException(
          "--redis auto needs redis-server on PATH: " + e.getMessage(), e);
    }
    long deadline = System.nanoTime() + READY_TIMEOUT_NANOS;
    while (!"+PONG".equals(command("PING"))) {
      if (System.nanoTime() > deadline || !process.isAlive()) {
        process.destroyForcibly();
        throw new IllegalStateException("redis-server on port " + port + " did not answer PING");
      }
      sleep(50);
    }
  }

  /** SIGSTOP: the server holds every connection and answers nothing until {@link #resume}. */
  synchronized void pause() {
    signal("STOP");
  }

  /** SIGCONT after {@link #pause}. */
  synchronized void resume() {
    signal("CONT");
  }

  /** SIGKILL: the server and all its data are gone until {@link #restart}. */
  synchronized void kill() {
    process.destroyForcibly();
    try {
      process.waitFor(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Starts the server again, empty, on the same port. */
  synchronized void restart() {
    launch();
  }

  /** FLUSHALL: every key of every database is gone. */
  synchronized void flush() {
    String reply = command("FLUSHALL");
    if (!"+OK".equals(reply)) {
      throw new IllegalStateException("FLUSHALL on port " + port + " answered " + reply);
    }
  }

  private void signal(String name) {
    try {
      Process kill = new ProcessBuilder("kill", "-" + name, Long.toString(process.pid())).start();
      kill.waitFor(5, TimeUnit.SECONDS);
    } catch (IOException e) {
      throw new IllegalStateException(
          "cannot send SIG" + name + " to redis-server: " + e.getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /**
   * One inline command over a fresh connection; its first reply line, or null when it cannot
   * connect.
   */
  private String command(String command) {
    try (Socket socket = new Socket()) {
      socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 500);
      socket.setSoTimeout(2000);
      OutputStream out = socket.getOutputStream();
      out.write((command + "\r\n").getBytes(StandardCharsets.US_ASCII));
      out.flush();
      InputStream in = socket.getInputStream();
      StringBuilder line = new StringBuilder();
      int c;
      while ((c = in.read()) >= 0 && c != '\r') {
        line.append((char) c);
      }
      return line.toString();
    } catch (IOException e) {
      return null;
    }
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public synchronized void close() {
    if (process != null && process.isAlive()) {
      signal("CONT");
      process.destroy();
      try {
        if (!process.waitFor(5, TimeUnit.SECONDS)) {
          process.destroyForcibly();
        }
      } catch (InterruptedException e) {
        process.destroyForcibly();
        Thread.currentThread().interrupt();
      }
    }
  }
}
