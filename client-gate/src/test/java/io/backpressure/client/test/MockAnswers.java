package io.backpressure.client.test;

import io.backpressure.mock.CompletionTokens;
import io.backpressure.mock.MockProviderConfig;
import io.backpressure.mock.limit.LimitSpec;
import io.backpressure.mock.limit.WindowModel;
import java.time.Duration;

/**
 * The mock provider's answers that the client and framework modules' tests of single calls share:
 * at once or slowly, with a fixed number of completion tokens, or one request per window so that
 * the next call is answered 429. For tests only.
 */
public final class MockAnswers {

  private MockAnswers() {}

  /**
   * Answers at once with {@code completionTokens} completion tokens, limiting nothing; a builder,
   * for the test to add a limit.
   */
  public static MockProviderConfig.Builder atOnce(int completionTokens) {
    return MockProviderConfig.builder()
        .latencyMs(0, 0)
        .completionTokens(new CompletionTokens.Fixed(completionTokens));
  }

  /**
   * Answers with {@code completionTokens} completion tokens after {@code latencyMs}; a stream is
   * written over that time, so a test can act on it while it is under way.
   */
  public static MockProviderConfig slowly(int latencyMs, int completionTokens) {
    return MockProviderConfig.builder()
        .latencyMs(latencyMs, latencyMs)
        .completionTokens(new CompletionTokens.Fixed(completionTokens))
        .build();
  }

  /** Answers at once, one request per fixed {@code window}: the next call in it is answered 429. */
  public static MockProviderConfig oneRequestPer(Duration window) {
    return MockProviderConfig.builder()
        .latencyMs(0, 0)
        .requests(LimitSpec.of(WindowModel.FIXED, 1, window))
        .build();
  }

  /**
   * Answers at once with {@code completionTokens} completion tokens, one request per fixed {@code
   * window}: the next call in it is answered 429.
   */
  public static MockProviderConfig oneRequestPer(Duration window, int completionTokens) {
    return atOnce(completionTokens).requests(LimitSpec.of(WindowModel.FIXED, 1, window)).build();
  }
}
