package io.backpressure.core.testing;

/**
 * The Gemini API's 429 {@code RESOURCE_EXHAUSTED} bodies as the API sends them: a {@code
 * QuotaFailure} naming the quota, Google's help link, and a {@code RetryInfo} with the delay.
 */
public final class GeminiAnswers {
  private GeminiAnswers() {}

  /** The 429 of a per-minute requests quota, with {@code retryDelay} (e.g. {@code "7s"}). */
  public static String perMinuteRequests(String retryDelay) {
    return resourceExhausted(
        "GenerateRequestsPerMinutePerProjectPerModel-FreeTier",
        "generate_content_free_tier_requests",
        retryDelay);
  }

  /**
   * The 429 of a per-day requests quota; its {@code RetryInfo} says a few seconds, after which the
   * quota is still spent.
   */
  public static String perDayRequests() {
    return resourceExhausted(
        "GenerateRequestsPerDayPerProjectPerModel-FreeTier",
        "generate_content_free_tier_requests",
        "43s");
  }

  private static String resourceExhausted(String quotaId, String metric, String retryDelay) {
    return """
        {"error":{"code":429,"message":"You exceeded your current quota, please check your plan \
        and billing details. For more information on this error, head to: \
        https://ai.google.dev/gemini-api/docs/rate-limits.","status":"RESOURCE_EXHAUSTED",\
        "details":[{"@type":"type.googleapis.com/google.rpc.QuotaFailure","violations":[\
        {"quotaMetric":"generativelanguage.googleapis.com/%s","quotaId":"%s",\
        "quotaDimensions":{"location":"global","model":"gemini-2.0-flash"},"quotaValue":"15"}]},\
        {"@type":"type.googleapis.com/google.rpc.Help","links":[{"description":"Learn more about \
        Gemini API quotas","url":"https://ai.google.dev/gemini-api/docs/rate-limits"}]},\
        {"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"%s"}]}}"""
        .formatted(metric, quotaId, retryDelay);
  }
}
