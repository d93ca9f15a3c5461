package io.backpressure.mock;

import io.backpressure.mock.limit.LimitSpec;
import io.backpressure.mock.limit.Verdict;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The rate-limit headers of an OpenAI-shaped answer, as the mock provider writes them: {@code
 * x-ratelimit-limit|remaining|reset-requests|tokens} for each capped dimension, and on a rejection
 * that retrying can help {@code retry-after} (seconds, rounded up) and {@code retry-after-ms}. The
 * HTTP server and the evaluation's simulator both write their answers' headers here, so the gate
 * meets the same text from either. Stateless and thread-safe.
 */
public final class OpenAiRateLimitHeaders {

  private OpenAiRateLimitHeaders() {}

  /**
   * The headers describing {@code verdict} (the state after the decision) for the caps {@code
   * requests} and {@code tokens} in force then (either {@code null} when not capped), in the order
   * the server sends them.
   */
  public static Map<String, String> of(LimitSpec requests, LimitSpec tokens, Verdict verdict) {
    Map<String, String> headers = new LinkedHashMap<>();
    dimension(
        headers, "requests", requests, verdict.remainingRequests(), verdict.resetRequestsNanos());
    dimension(headers, "tokens", tokens, verdict.remainingTokens(), verdict.resetTokensNanos());
    if (!verdict.admitted() && !verdict.neverFits()) {
      headers.put(
          "retry-after", Long.toString(RateLimitFormat.ceilSeconds(verdict.retryAfterNanos())));
      headers.put(
          "retry-after-ms", Long.toString(RateLimitFormat.ceilMillis(verdict.retryAfterNanos())));
    }
    return headers;
  }

  private static void dimension(
      Map<String, String> headers,
      String dimension,
      LimitSpec spec,
      double remaining,
      long resetNanos) {
    if (spec == null) {
      return;
    }
    headers.put("x-ratelimit-limit-" + dimension, RateLimitFormat.limit(spec.limitPerPeriod()));
    headers.put("x-ratelimit-remaining-" + dimension, RateLimitFormat.remaining(remaining));
    headers.put("x-ratelimit-reset-" + dimension, RateLimitFormat.duration(resetNanos));
  }
}
