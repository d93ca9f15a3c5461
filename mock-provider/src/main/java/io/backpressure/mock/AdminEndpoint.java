package io.backpressure.mock;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import java.io.IOException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The read-only endpoints: {@code GET /v1/records[?since=SEQ]} (a JSON array of {@link
 * RequestRecord}s in snake case), {@code GET /metrics/summary} (the {@link Summary} totals) and
 * {@code GET /health}. Any other path is answered 404 in OpenAI's error shape.
 */
final class AdminEndpoint implements HttpHandler {

  static final String RECORDS = "/v1/records";
  static final String SUMMARY = "/metrics/summary";
  static final String HEALTH = "/health";

  private static final Logger LOG = LoggerFactory.getLogger(AdminEndpoint.class);
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

  private final ProviderState state;
  private final Dialect errors = new OpenAiDialect();

  AdminEndpoint(ProviderState state) {
    this.state = state;
  }

  @Override
  public void handle(HttpExchange exchange) {
    try {
      serve(exchange);
    } catch (IOException | RuntimeException e) {
      LOG.debug("failed to answer {}", exchange.getRequestURI(), e);
      exchange.close();
    }
  }

  private void serve(HttpExchange exchange) throws IOException {
    String path = exchange.getRequestURI().getPath();
    boolean known = path.equals(RECORDS) || path.equals(SUMMARY) || path.equals(HEALTH);
    if (!known) {
      String message = "Unknown request URL: " + exchange.getRequestMethod() + " " + path + ".";
      Exchanges.send(exchange, 404, errors.clientError(message, null, "unknown_url"));
      return;
    }
    if (!exchange.getRequestMethod().equals("GET")) {
      exchange.getResponseHeaders().set("allow", "GET");
      String message = "Method " + exchange.getRequestMethod() + " is not allowed; use GET.";
      Exchanges.send(exchange, 405, errors.clientError(message, null, "method_not_allowed"));
      return;
    }
    switch (path) {
      case RECORDS -> records(exchange);
      case SUMMARY -> Exchanges.send(exchange, 200, summaryJson(state.summary()));
      default -> Exchanges.send(exchange, 200, NODES.objectNode().put("status", "ok"));
    }
  }

  private void records(HttpExchange exchange) throws IOException {
    long since = 0;
    String query = exchange.getRequestURI().getRawQuery();
    if (query != null && !query.isEmpty()) {
      String value = query.startsWith("since=") ? query.substring("since=".length()) : null;
      try {
        since = value == null ? -1 : Long.parseLong(value);
      } catch (NumberFormatException e) {
        since = -1;
      }
      if (since < 0) {
        String message = "Invalid query '" + query + "': expected since=N with an integer N >= 0.";
        Exchanges.send(exchange, 400, errors.clientError(message, "since", "invalid_value"));
        return;
      }
    }
    Exchanges.send(exchange, 200, state.records(since));
  }

  /** The summary as JSON: totals, 429s by dimension, and token sums of the 200 answers. */
  static ObjectNode summaryJson(Summary summary) {
    ObjectNode root = NODES.objectNode();
    root.put("requests", summary.requests());
    root.put("ok", summary.ok());
    ObjectNode limited = root.putObject("rate_limited");
    limited.put("requests", summary.rateLimitedRequests());
    limited.put("tokens", summary.rateLimitedTokens());
    limited.put("total", summary.rateLimited());
    root.put("bad_request", summary.badRequests());
    root.put("in_flight", summary.inFlight());
    ObjectNode tokens = root.putObject("tokens");
    tokens.put("prompt", summary.promptTokens());
    tokens.put("completion", summary.completionTokens());
    tokens.put("total", summary.promptTokens() + summary.completionTokens());
    root.put("uptime_s", summary.uptimeNanos() / 1e9);
    return root;
  }
}
