package io.backpressure.mock;

import static org.assertj.core.api.Assertions.assertThat;

import io.backpressure.mock.limit.LimitSpec;
import io.backpressure.mock.limit.WindowModel;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class MockMetricsTest {
  @Test
  void scrapeCountsAnswersByStatusAndBindingDimension() throws Exception {
    MockProviderConfig config = MockProviderConfig.builder().latencyMs(0, 0)
        .requests(LimitSpec.of(WindowModel.FIXED, 1, Duration.ofMinutes(10)))
        .completionTokens(new CompletionTokens.Fixed(5))
        .build();
    try (MockProvider provider = MockProvider.start(config)) {
      Http http = new Http(provider);
      assertThat(http.post("/v1/chat/completions", Http.chat("hello", null)).status()).isEqualTo(200);
      assertThat(http.post("/v1/chat/completions", Http.chat("hello", null)).status()).isEqualTo(429);

      String scrape = MockMetrics.registry(provider).scrape();
      assertThat(scrape).contains("mock_llm_responses_total{dimension=\"none\",status=\"200\"} 1.0");
      assertThat(scrape).contains("mock_llm_responses_total{dimension=\"requests\",status=\"429\"} 1.0");
      assertThat(scrape).contains("mock_llm_tokens_total{kind=\"completion\"} 5.0");
    }
  }
}
