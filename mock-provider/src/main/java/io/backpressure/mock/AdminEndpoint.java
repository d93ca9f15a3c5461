package io.backpressure.mock;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * The read-only endpoints: {@code GET /v1/records[?since=SEQ]} (a JSON array of {@link
 * RequestRecord}s in snake case), {@code GET /metrics/summary} (the {@link Summary} totals) and
 * {@code GET /health}.
 */
final class AdminEndpoint implements Endpoint {

  static final String RECORDS = "/v1/records";
  static final String SUMMARY = "/metrics/summary";
  static final String HEALTH = "/health";

  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

  private final ProviderState state;
  private final Dialect errors = new OpenAiDialect();

  AdminEndpoint(ProviderState state) {
    this.state = state;
  }

  @Override
  public void serve(Exchange exchange) {
    if (Routes.refusedMethod(exchange, "GET", errors)) {
      return;
    }
    switch (exchange.path()) {
      case RECORDS -> records(exchange);
      case SUMMARY -> exchange.sendJson(200, summaryJson(state.summary()));
      default -> exchange.sendJson(200, NODES.objectNode().put("status", "ok"));
    }
  }

  private void records(Exchange exchange) {
    long since = 0;
    String query = exchange.query();
    if (query != null && !query.isEmpty()) {
      String value = query.startsWith("since=") ? query.substring("since=".length()) : null;
      try {
        since = value == null ? -1 : Long.parseLong(value);
      } catch (NumberFormatException e) {
        since = -1;
      }
      if (since < 0) {
        String message = "Invalid query '" + query + "': expected since=N with an integer N >= 0.";
        exchange.sendJson(400, errors.clientError(message, "since", "invalid_value"));
        return;
      }
    }
    exchange.sendJson(200, state.records(since));
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
    root.put("day_limited", summary.dayLimited());
    root.put("bad_request", summary.badRequests());
    root.put("server_error", summary.serverErrors());
    root.put("in_flight", summary.inFlight());
    ObjectNode tokens = root.putObject("tokens");
    tokens.put("prompt", summary.promptTokens());
    tokens.put("completion", summary.completionTokens());
    tokens.put("total", summary.promptTokens() + summary.completionTokens());
    ObjectNode outside = root.putObject("outside");
    outside.put("requests", summary.outsideRequests());
    outside.put("admitted", summary.outsideAdmitted());
    root.put("uptime_s", summary.uptimeNanos() / 1e9);
    return root;
  }
}
