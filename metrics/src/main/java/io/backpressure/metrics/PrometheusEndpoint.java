package io.backpressure.metrics;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Objects;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Serves a {@link PrometheusMeterRegistry} for scraping at {@code GET /metrics}, in the Prometheus
 * text format 0.0.4, on the JDK's HTTP server. Meant for long-running commands:
 *
 * <pre>{@code
 * PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
 * try (PrometheusEndpoint endpoint = PrometheusEndpoint.start(registry, "127.0.0.1", 9464)) {
 *   Gate gate = MeteredGate.builder(InMemoryGate.create(policy), registry).build();
 *   ...
 * }
 * }</pre>
 *
 * <p>Scrapes are answered one at a time on one daemon thread; any other path answers 404 and any
 * other method 405. Requires {@code io.micrometer:micrometer-registry-prometheus} on the class path
 * (an optional dependency of this module). Thread-safe; {@link #close()} is idempotent.
 */
public final class PrometheusEndpoint implements AutoCloseable {
  /** The scrape path. */
  public static final String PATH = "/metrics";

  private static final String CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";
  private static final Logger LOG = LoggerFactory.getLogger(PrometheusEndpoint.class);

  private final HttpServer server;
  private final ExecutorService executor;
  private final String host;

  private PrometheusEndpoint(HttpServer server, ExecutorService executor, String host) {
    this.server = server;
    this.executor = executor;
    this.host = host;
  }

  /**
   * Binds {@code host:port} and starts serving {@code registry}.
   *
   * @param host the address to bind, e.g. {@code 127.0.0.1} (loopback only) or {@code 0.0.0.0}
   * @param port the TCP port in [0, 65535]; 0 picks a free one (see {@link #port()})
   * @throws IllegalArgumentException if the port is out of range or the host is blank
   * @throws IOException if the address cannot be bound
   */
  public static PrometheusEndpoint start(PrometheusMeterRegistry registry, String host, int port)
      throws IOException {
    Objects.requireNonNull(registry, "registry");
    if (host == null || host.isBlank()) {
      throw new IllegalArgumentException("host must not be blank");
    }
    if (port < 0 || port > 65_535) {
      throw new IllegalArgumentException("port must be in the range [0, 65535], got " + port);
    }
    HttpServer server = HttpServer.create(new InetSocketAddress(host, port), 16);
    ExecutorService executor =
        Executors.newSingleThreadExecutor(
            r -> {
              Thread thread = new Thread(r, "backpressure-prometheus");
              thread.setDaemon(true);
              return thread;
            });
    server.setExecutor(executor);
    server.createContext("/", exchange -> serve(registry, exchange));
    server.start();
    PrometheusEndpoint endpoint = new PrometheusEndpoint(server, executor, host);
    LOG.info("Prometheus metrics at {}", endpoint.url());
    return endpoint;
  }

  /** The bound port (the chosen one when started with port 0). */
  public int port() {
    return server.getAddress().getPort();
  }

  /** {@code http://host:port/metrics}. */
  public String url() {
    return "http://" + (host.contains(":") ? "[" + host + "]" : host) + ":" + port() + PATH;
  }

  /** Stops listening; a scrape in progress is cut off. */
  @Override
  public void close() {
    server.stop(0);
    executor.shutdownNow();
  }

  private static void serve(PrometheusMeterRegistry registry, HttpExchange exchange)
      throws IOException {
    try (exchange) {
      String method = exchange.getRequestMethod();
      if (!exchange.getRequestURI().getPath().equals(PATH)) {
        send(exchange, 404, "not found; metrics are at " + PATH + "\n", false);
      } else if (!method.equals("GET") && !method.equals("HEAD")) {
        exchange.getResponseHeaders().set("Allow", "GET, HEAD");
        send(exchange, 405, "method not allowed; use GET\n", false);
      } else {
        exchange.getResponseHeaders().set("Content-Type", CONTENT_TYPE);
        send(exchange, 200, registry.scrape(), method.equals("HEAD"));
      }
    } catch (IOException | RuntimeException e) {
      LOG.debug("failed to answer a scrape of {}", exchange.getRequestURI(), e);
    }
  }

  private static void send(HttpExchange exchange, int status, String body, boolean headOnly)
      throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    if (!exchange.getResponseHeaders().containsKey("Content-Type")) {
      exchange.getResponseHeaders().set("Content-Type", "text/plain; charset=utf-8");
    }
    exchange.sendResponseHeaders(status, headOnly ? -1 : bytes.length);
    if (!headOnly) {
      try (OutputStream out = exchange.getResponseBody()) {
        out.write(bytes);
      }
    }
  }
}
