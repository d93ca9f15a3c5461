package io.backpressure.mock;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import io.backpressure.mock.limit.LimitSpec;
import io.backpressure.mock.limit.UpstreamLimiter;
import io.backpressure.mock.limit.Verdict;
import java.io.IOException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One completion endpoint in one {@link Dialect}. A valid call is decided on arrival; a 429 or 400
 * is answered at once, a 200 after the simulated latency. The wait holds no thread: the exchange is
 * left open and finished later by a task on the scheduler, which writes the answer itself (an
 * HTTP/1.1 client reads each answer before it sends its next request on a connection, so these
 * small writes never wait for the client). Every answered call is recorded before its answer is
 * written, so a client that has its answer also finds its record.
 */
final class CompletionEndpoint implements HttpHandler {

  private static final Logger LOG = LoggerFactory.getLogger(CompletionEndpoint.class);

  private final String path;
  private final Dialect dialect;
  private final ProviderState state;
  private final int maxBodyBytes;
  private final ScheduledExecutorService scheduler;

  CompletionEndpoint(
      String path,
      Dialect dialect,
      ProviderState state,
      int maxBodyBytes,
      ScheduledExecutorService scheduler) {
    this.path = path;
    this.dialect = dialect;
    this.state = state;
    this.maxBodyBytes = maxBodyBytes;
    this.scheduler = scheduler;
  }

  @Override
  public void handle(HttpExchange exchange) {
    try {
      serve(exchange);
    } catch (IOException | RuntimeException e) {
      LOG.debug("failed to answer {} {}", exchange.getRequestMethod(), path, e);
      exchange.close();
    }
  }

  private void serve(HttpExchange exchange) throws IOException {
    if (!exchange.getRequestURI().getPath().equals(path)) {
      String message = "Unknown request URL: " + exchange.getRequestURI().getPath() + ".";
      Exchanges.send(exchange, 404, dialect.clientError(message, null, "unknown_url"));
      return;
    }
    if (!exchange.getRequestMethod().equals("POST")) {
      exchange.getResponseHeaders().set("allow", "POST");
      String message = "Method " + exchange.getRequestMethod() + " is not allowed; use POST.";
      Exchanges.send(exchange, 405, dialect.clientError(message, null, "method_not_allowed"));
      return;
    }
    RequestContext context = RequestContext.of(exchange.getRequestHeaders());
    ParsedCall call;
    try {
      call = dialect.parse(readJson(exchange));
    } catch (BadRequestException e) {
      state.record(context, 400, null, 0, 0, 0, 0, state.now());
      Exchanges.send(exchange, 400, dialect.clientError(e.getMessage(), e.param(), e.code()));
      return;
    }
    ProviderState.Decision decision = state.decide(call);
    Verdict verdict = decision.verdict();
    dialect.rateLimitHeaders(
        exchange.getResponseHeaders(), state.limiter(), verdict, System.currentTimeMillis());
    if (!verdict.admitted()) {
      rejected(exchange, context, call, decision);
      return;
    }
    ObjectNode body =
        dialect.completion(
            call,
            decision.id(),
            System.currentTimeMillis() / 1000,
            decision.completionTokens(),
            decision.truncated());
    Runnable answer = () -> answer(exchange, context, call, decision, body);
    if (decision.latencyNanos() == 0) {
      answer.run();
    } else {
      scheduler.schedule(answer, decision.latencyNanos(), TimeUnit.NANOSECONDS);
    }
  }

  private void answer(
      HttpExchange exchange,
      RequestContext context,
      ParsedCall call,
      ProviderState.Decision decision,
      ObjectNode body) {
    state.record(
        context,
        200,
        null,
        0,
        call.promptTokens(),
        decision.completionTokens(),
        decision.chargedTokens(),
        decision.arrivalNanos());
    try {
      Exchanges.send(exchange, 200, body);
    } catch (IOException | RuntimeException e) {
      LOG.debug("failed to write a completion", e);
      exchange.close();
    }
  }

  private void rejected(
      HttpExchange exchange,
      RequestContext context,
      ParsedCall call,
      ProviderState.Decision decision)
      throws IOException {
    Verdict verdict = decision.verdict();
    String dimension = verdict.boundDimension();
    boolean requests = dimension.equals(UpstreamLimiter.REQUESTS);
    UpstreamLimiter limiter = state.limiter();
    LimitSpec spec = requests ? limiter.requestsSpec() : limiter.tokensSpec();
    long requested = requests ? 1 : decision.chargedTokens();
    String quota =
        " for "
            + call.model()
            + " on "
            + dimension
            + " per "
            + RateLimitFormat.duration(spec.periodNanos())
            + ": Limit "
            + RateLimitFormat.limit(spec.limitPerPeriod());
    String message;
    if (verdict.neverFits()) {
      exchange.getResponseHeaders().set("x-should-retry", "false");
      message =
          "Request too large"
              + quota
              + ", Requested "
              + requested
              + ". The input or output tokens must be reduced in order to run successfully.";
    } else {
      double remaining = requests ? verdict.remainingRequests() : verdict.remainingTokens();
      message =
          "Rate limit reached"
              + quota
              + ", Remaining "
              + RateLimitFormat.remaining(remaining)
              + ", Requested "
              + requested
              + ". Please try again in "
              + RateLimitFormat.duration(verdict.retryAfterNanos())
              + ".";
    }
    state.record(
        context,
        429,
        dimension,
        verdict.neverFits() ? -1 : verdict.retryAfterNanos(),
        call.promptTokens(),
        0,
        decision.chargedTokens(),
        decision.arrivalNanos());
    Exchanges.send(exchange, 429, dialect.rateLimited(dimension, message));
  }

  private JsonNode readJson(HttpExchange exchange) throws IOException, BadRequestException {
    byte[] body = Exchanges.readBody(exchange, maxBodyBytes);
    JsonNode root;
    try {
      root = Exchanges.JSON.readTree(body);
    } catch (JsonProcessingException e) {
      throw new BadRequestException(
          "We could not parse the JSON body of your request: " + e.getOriginalMessage(),
          null,
          "invalid_json");
    }
    if (root == null || !root.isObject()) {
      throw new BadRequestException(
          "The request body must be a JSON object.", null, "invalid_json");
    }
    return root;
  }
}
