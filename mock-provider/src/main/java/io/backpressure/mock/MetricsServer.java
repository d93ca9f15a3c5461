package io.backpressure.mock;

import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.thread.QueuedThreadPool;

/**
 * Serves a Prometheus registry for scraping at {@code GET /metrics} (text format 0.0.4) on its own
 * port, for {@code mock-llm --metrics-port}; any other path answers 404, any other method 405.
 * Thread-safe; {@link #close()} is idempotent.
 */
final class MetricsServer implements AutoCloseable {

  static final String PATH = "/metrics";
  private static final String CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

  private final Server server;
  private final ServerConnector connector;
  private final String host;

  private MetricsServer(Server server, ServerConnector connector, String host) {
    this.server = server;
    this.connector = connector;
    this.host = host;
  }

  /**
   * Binds {@code host:port} ({@code port} 0 picks a free one) and starts serving {@code registry}.
   *
   * @throws IOException when the address cannot be bound
   */
  static MetricsServer start(PrometheusMeterRegistry registry, String host, int port)
      throws IOException {
    QueuedThreadPool threads = new QueuedThreadPool(8, 1);
    threads.setName("mock-provider-metrics");
    threads.setDaemon(true);
    Server server = new Server(threads);
    ServerConnector connector = new ServerConnector(server, 1, 1);
    connector.setHost(host);
    connector.setPort(port);
    server.addConnector(connector);
    server.setHandler(
        new Handler.Abstract.NonBlocking() {
          @Override
          public boolean handle(Request request, Response response, Callback callback) {
            if (!Request.getPathInContext(request).equals(PATH)) {
              Response.writeError(request, response, callback, 404);
            } else if (!request.getMethod().equals("GET")) {
              response.getHeaders().put(HttpHeader.ALLOW, "GET");
              Response.writeError(request, response, callback, 405);
            } else {
              response.getHeaders().put(HttpHeader.CONTENT_TYPE, CONTENT_TYPE);
              response.write(
                  true,
                  ByteBuffer.wrap(registry.scrape().getBytes(StandardCharsets.UTF_8)),
                  callback);
            }
            return true;
          }
        });
    try {
      server.start();
    } catch (Exception e) {
      try {
        server.stop();
      } catch (Exception ignored) {
        // already failing: the start failure is the one to report
      }
      throw e instanceof IOException io
          ? io
          : new IOException("cannot serve metrics on " + host + ":" + port, e);
    }
    return new MetricsServer(server, connector, host);
  }

  /** {@code http://host:port/metrics}. */
  String url() {
    return "http://"
        + (host.contains(":") ? "[" + host + "]" : host)
        + ":"
        + connector.getLocalPort()
        + PATH;
  }

  @Override
  public void close() {
    try {
      server.stop();
    } catch (Exception e) {
      throw new IllegalStateException("stopping the metrics server failed", e);
    }
  }
}
