package io.backpressure.mock;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.backpressure.mock.limit.LimitSpec;
import io.backpressure.mock.limit.UpstreamLimiter;
import io.backpressure.mock.limit.Verdict;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.IntConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One completion endpoint in one {@link Dialect}. The body is read without holding a thread; a
 * valid call is decided as soon as it is whole. A 429 or 400 is answered at once, a 200 after the
 * simulated latency: whole, or streamed as server-sent events spread over that latency ({@link
 * StreamedAnswer}). No thread waits: the answer is written by tasks on the scheduler. Every
 * answered call is recorded before its answer (or the last event of its stream) is written, so a
 * client that has its answer also finds its record.
 */
final class CompletionEndpoint implements Endpoint {

  private static final Logger LOG = LoggerFactory.getLogger(CompletionEndpoint.class);

  private final Dialect dialect;
  private final ProviderState state;
  private final int maxBodyBytes;
  private final ScheduledExecutorService scheduler;

  CompletionEndpoint(
      Dialect dialect, ProviderState state, int maxBodyBytes, ScheduledExecutorService scheduler) {
    this.dialect = dialect;
    this.state = state;
    this.maxBodyBytes = maxBodyBytes;
    this.scheduler = scheduler;
  }

  @Override
  public void serve(Exchange exchange) {
    if (Routes.refusedMethod(exchange, "POST", dialect)) {
      return;
    }
    RequestContext context = RequestContext.of(exchange);
    exchange.readBody(
        maxBodyBytes,
        (body, unreadable) -> {
          try {
            if (unreadable != null) {
              refuse(exchange, context, unreadable);
            } else {
              serve(exchange, context, body);
            }
          } catch (RuntimeException e) {
            fail(exchange, e);
          }
        });
  }

  private static void fail(Exchange exchange, RuntimeException e) {
    LOG.debug("failed to answer {} {}", exchange.method(), exchange.path(), e);
    exchange.abort(e);
  }

  private void serve(Exchange exchange, RequestContext context, byte[] body) {
    ParsedCall call;
    try {
      call = dialect.parse(exchange.path(), exchange.query(), parseJson(body));
    } catch (BadRequestException e) {
      refuse(exchange, context, e);
      return;
    }
    ProviderState.Decision decision = state.decide(call);
    switch (decision.failure()) {
      case SERVER_ERROR -> {
        failed(exchange, context, call, decision, 500, dialect.serverError());
        return;
      }
      case OVERLOADED -> {
        failed(exchange, context, call, decision, dialect.overloadedStatus(), dialect.overloaded());
        return;
      }
      case DAY_LIMIT -> {
        dayLimited(exchange, context, call, decision);
        return;
      }
      case NONE -> {}
    }
    Verdict verdict = decision.verdict();
    dialect.rateLimitHeaders(
        exchange.responseHeaders(),
        decision.requestsSpec(),
        decision.tokensSpec(),
        verdict,
        System.currentTimeMillis());
    if (!verdict.admitted()) {
      rejected(exchange, context, call, decision);
      return;
    }
    IntConsumer recordWith =
        completion ->
            state.record(
                context,
                200,
                null,
                0,
                call.promptTokens(),
                completion,
                completion < decision.completionTokens()
                    ? state.refundUndelivered(decision, completion)
                    : decision.chargedTokens(),
                decision.arrivalNanos());
    long created = System.currentTimeMillis() / 1000;
    exchange.allowSilence(decision.latencyNanos());
    if (call.stream()) {
      new StreamedAnswer(
              exchange, dialect, call, decision, created, recordWith, scheduler, state::faults)
          .start();
      return;
    }
    ObjectNode answer =
        dialect.completion(
            call, decision.id(), created, decision.completionTokens(), decision.truncated());
    dialect.answerHeaders(exchange.responseHeaders(), call, decision.completionTokens());
    Runnable send =
        () -> {
          recordWith.accept(decision.completionTokens());
          exchange.sendJson(200, answer);
        };
    if (decision.latencyNanos() == 0) {
      send.run();
    } else {
      Exchange.later(scheduler, decision.latencyNanos(), send, e -> fail(exchange, e));
    }
  }

  private void refuse(Exchange exchange, RequestContext context, BadRequestException e) {
    state.record(context, e.status(), null, 0, 0, 0, 0, state.now());
    dialect.errorHeaders(exchange.responseHeaders(), e.status(), e.code());
    exchange.sendJson(e.status(), dialect.clientError(e.getMessage(), e.param(), e.code()));
  }

  /** Answers a call failed before the limiters saw it (charged nothing) with {@code status}. */
  private void failed(
      Exchange exchange,
      RequestContext context,
      ParsedCall call,
      ProviderState.Decision decision,
      int status,
      ObjectNode body) {
    state.record(context, status, null, 0, call.promptTokens(), 0, 0, decision.arrivalNanos());
    dialect.errorHeaders(exchange.responseHeaders(), status, null);
    exchange.sendJson(status, body);
  }

  /** Answers a call its day has no room for, at once, charged nothing. */
  private void dayLimited(
      Exchange exchange, RequestContext context, ParsedCall call, ProviderState.Decision decision) {
    DayWindows.Refusal refusal = decision.dayRefusal();
    Instant now = state.wallNow();
    ObjectNode body = dialect.dayLimited(exchange.responseHeaders(), call, refusal, now);
    long untilReset = Math.max(0, Duration.between(now, refusal.resetAt()).toNanos());
    state.record(
        context,
        dialect.dayLimitedStatus(),
        refusal.recorded(),
        untilReset,
        call.promptTokens(),
        0,
        decision.chargedTokens(),
        decision.arrivalNanos());
    exchange.sendJson(dialect.dayLimitedStatus(), body);
  }

  private void rejected(
      Exchange exchange, RequestContext context, ParsedCall call, ProviderState.Decision decision) {
    Verdict verdict = decision.verdict();
    String dimension = verdict.boundDimension();
    boolean requests = dimension.equals(UpstreamLimiter.REQUESTS);
    LimitSpec spec = requests ? decision.requestsSpec() : decision.tokensSpec();
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
      exchange.responseHeaders().put("x-should-retry", "false");
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
    int status = verdict.neverFits() ? dialect.neverFitsStatus() : 429;
    state.record(
        context,
        status,
        dimension,
        verdict.neverFits() ? -1 : verdict.retryAfterNanos(),
        call.promptTokens(),
        0,
        decision.chargedTokens(),
        decision.arrivalNanos());
    exchange.sendJson(
        status,
        dialect.rateLimited(
            dimension, message, spec, verdict.neverFits() ? -1 : verdict.retryAfterNanos()));
  }

  private static JsonNode parseJson(byte[] body) throws BadRequestException {
    JsonNode root;
    try {
      root = Exchange.JSON.readTree(body);
    } catch (JsonProcessingException e) {
      throw new BadRequestException(
          "We could not parse the JSON body of your request: " + e.getOriginalMessage(),
          null,
          "invalid_json");
    } catch (java.io.IOException e) {
      throw new BadRequestException(
          "We could not read the JSON body of your request.", null, "invalid_json");
    }
    if (root == null || !root.isObject()) {
      throw new BadRequestException(
          "The request body must be a JSON object.", null, "invalid_json");
    }
    return root;
  }
}
