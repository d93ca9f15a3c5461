package io.backpressure.mock;

import java.util.Map;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The server's one Jetty handler: sends each request to the {@link Endpoint} of its exact path,
 * else to the one of the longest path prefix that matches (the Gemini API names the model in the
 * path), and answers any other path 404 in OpenAI's error shape. Non-blocking: endpoints read
 * bodies and wait out latencies without holding the calling thread.
 */
final class Routes extends Handler.Abstract.NonBlocking {

  private static final Logger LOG = LoggerFactory.getLogger(Routes.class);

  private final Map<String, Endpoint> endpoints;
  private final Map<String, Endpoint> prefixes;
  private final Dialect errors = new OpenAiDialect();

  /**
   * @param endpoints by exact path
   * @param prefixes by path prefix, for paths with no exact endpoint
   */
  Routes(Map<String, Endpoint> endpoints, Map<String, Endpoint> prefixes) {
    this.endpoints = Map.copyOf(endpoints);
    this.prefixes = Map.copyOf(prefixes);
  }

  private Endpoint endpoint(String path) {
    Endpoint exact = endpoints.get(path);
    if (exact != null) {
      return exact;
    }
    String longest = null;
    for (String prefix : prefixes.keySet()) {
      if (path.startsWith(prefix) && (longest == null || prefix.length() > longest.length())) {
        longest = prefix;
      }
    }
    return longest == null ? null : prefixes.get(longest);
  }

  @Override
  public boolean handle(Request request, Response response, Callback callback) {
    Exchange exchange = new Exchange(request, response, callback);
    try {
      Endpoint endpoint = endpoint(exchange.path());
      if (endpoint == null) {
        String message = "Unknown request URL: " + exchange.method() + " " + exchange.path() + ".";
        exchange.sendJson(404, errors.clientError(message, null, "unknown_url"));
      } else {
        endpoint.serve(exchange);
      }
    } catch (RuntimeException e) {
      LOG.debug("failed to answer {} {}", exchange.method(), exchange.path(), e);
      exchange.abort(e);
    }
    return true;
  }

  /**
   * Answers 405 naming the allowed method when {@code exchange} uses another; returns whether it
   * did.
   */
  static boolean refusedMethod(Exchange exchange, String allowed, Dialect dialect) {
    if (exchange.method().equals(allowed)) {
      return false;
    }
    exchange.responseHeaders().put("allow", allowed);
    dialect.errorHeaders(exchange.responseHeaders(), 405, "method_not_allowed");
    String message = "Method " + exchange.method() + " is not allowed; use " + allowed + ".";
    exchange.sendJson(405, dialect.clientError(message, null, "method_not_allowed"));
    return true;
  }
}
