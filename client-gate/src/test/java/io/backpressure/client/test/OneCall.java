package io.backpressure.client.test;

import static org.assertj.core.api.Assertions.assertThat;

import io.backpressure.mock.MockProvider;
import io.backpressure.mock.MockProviderConfig;

/**
 * A README example's one call against a fresh mock provider that answers at once and limits
 * nothing: the example must reach the provider exactly once and be answered 200. For tests only.
 */
public final class OneCall {

  /** An example's call, given the mock provider to send to. */
  @FunctionalInterface
  public interface Example<T> {
    T call(MockProvider provider) throws Exception;
  }

  private OneCall() {}

  /**
   * Runs {@code example} against a mock provider started for it, asserts that the provider saw one
   * request and answered it 200, and returns the example's reply.
   */
  public static <T> T againstTheMock(Example<T> example) throws Exception {
    try (MockProvider provider =
        MockProvider.start(MockProviderConfig.builder().latencyMs(0, 0).build())) {
      T reply = example.call(provider);
      assertThat(provider.records())
          .singleElement()
          .satisfies(r -> assertThat(r.status()).isEqualTo(200));
      return reply;
    }
  }
}
