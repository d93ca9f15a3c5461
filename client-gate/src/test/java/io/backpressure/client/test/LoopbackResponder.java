package io.backpressure.client.test;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * A tiny HTTP server on loopback that answers every request with one scripted answer: a status,
 * headers and a body written in parts, flushed one by one (server-sent events arrive as written).
 * An answer can stop after its parts without ending, as a stalled provider does, until the client
 * goes away or the responder closes. Records each request's body. For tests only.
 */
public final class LoopbackResponder implements AutoCloseable {

  /**
   * One scripted answer.
   *
   * @param status the HTTP status
   * @param headers extra response headers
   * @param parts the body, in the parts it is written and flushed in
   * @param stall whether to keep the answer open after the parts instead of ending it
   */
  public record Answer(int status, Map<String, String> headers, List<String> parts, boolean stall) {

    /** A JSON answer. */
    public static Answer json(int status, Map<String, String> headers, String body) {
      return new Answer(status, withType(headers, "application/json"), List.of(body), false);
    }

    /**
     * A server-sent event stream of {@code events}, each written as {@code data: …} plus a blank
     * line.
     */
    public static Answer events(List<String> events, boolean stall) {
      return new Answer(
          200,
          Map.of("content-type", "text/event-stream"),
          events.stream().map(e -> e + "\n\n").toList(),
          stall);
    }

    private static Map<String, String> withType(Map<String, String> headers, String type) {
      java.util.HashMap<String, String> all = new java.util.HashMap<>(headers);
      all.putIfAbsent("content-type", type);
      return Map.copyOf(all);
    }
  }

  private final HttpServer server;
  private final ExecutorService executor = Executors.newCachedThreadPool();
  private final List<String> requests = new CopyOnWriteArrayList<>();
  private final List<Map<String, List<String>>> requestHeaders = new CopyOnWriteArrayList<>();
  private final CountDownLatch closing = new CountDownLatch(1);
  private volatile Answer answer;

  private LoopbackResponder(Answer answer) throws IOException {
    this.answer = answer;
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext("/", this::handle);
    server.setExecutor(executor);
    server.start();
  }

  /** Starts on a free loopback port, answering {@code answer} to every request. */
  public static LoopbackResponder start(Answer answer) throws IOException {
    return new LoopbackResponder(answer);
  }

  /** The base URL: {@code http://127.0.0.1:PORT}. */
  public String baseUrl() {
    return "http://127.0.0.1:" + server.getAddress().getPort();
  }

  /** Answers {@code next} from now on. */
  public void answer(Answer next) {
    this.answer = next;
  }

  /** The bodies of the requests received so far, in order. */
  public List<String> requests() {
    return List.copyOf(requests);
  }

  /** The headers of the requests received so far, in order; names in lower case. */
  public List<Map<String, List<String>>> requestHeaders() {
    return List.copyOf(requestHeaders);
  }

  private void handle(HttpExchange exchange) throws IOException {
    Map<String, List<String>> headers = new java.util.TreeMap<>();
    exchange
        .getRequestHeaders()
        .forEach((name, values) -> headers.put(name.toLowerCase(java.util.Locale.ROOT), values));
    requestHeaders.add(headers);
    requests.add(new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8));
    Answer current = answer;
    current.headers().forEach((name, value) -> exchange.getResponseHeaders().add(name, value));
    exchange.sendResponseHeaders(current.status(), 0);
    try (OutputStream body = exchange.getResponseBody()) {
      for (String part : current.parts()) {
        body.write(part.getBytes(StandardCharsets.UTF_8));
        body.flush();
      }
      if (current.stall()) {
        closing.await(30, TimeUnit.SECONDS);
      }
    } catch (IOException | InterruptedException e) {
      // the client went away, as a cancelling client does
    } finally {
      exchange.close();
    }
  }

  @Override
  public void close() {
    closing.countDown();
    server.stop(0);
    executor.shutdownNow();
  }
}
