package io.backpressure.mock;

import static org.assertj.core.api.Assertions.assertThat;

import io.backpressure.mock.limit.LimitSpec;
import io.backpressure.mock.limit.WindowModel;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class MockMetricsTest {
  @Test
  void scrapeCountsAnswersByStatusAndBindingDimension() throws Exception {
    MockProviderConfig config =
        MockProviderConfig.builder()
            .latencyMs(0, 0)
            .requests(LimitSpec.of(WindowModel.FIXED, 1, Duration.ofMinutes(10)))
            .completionTokens(new CompletionTokens.Fixed(5))
            .build();
    try (MockProvider provider = MockProvider.start(config)) {
      Http http = new Http(provider);
      assertThat(http.post("/v1/chat/completions", Http.chat("hello", null)).status())
          .isEqualTo(200);
      assertThat(http.post("/v1/chat/completions", Http.chat("hello", null)).status())
          .isEqualTo(429);

      String scrape = MockMetrics.registry(provider).scrape();
      assertThat(scrape)
          .contains("mock_llm_responses_total{dimension=\"none\",status=\"200\"} 1.0");
      assertThat(scrape)
          .contains("mock_llm_responses_total{dimension=\"requests\",status=\"429\"} 1.0");
      assertThat(scrape).contains("mock_llm_tokens_total{kind=\"completion\"} 5.0");
    }
  }

  @Test
  void theMetricsServerAnswersScrapesAtItsPathOnly() throws Exception {
    try (MockProvider provider = MockProvider.start(MockProviderConfig.builder().build());
        MetricsServer metrics =
            MetricsServer.start(MockMetrics.registry(provider), "127.0.0.1", 0)) {
      HttpClient client = HttpClient.newHttpClient();
      HttpResponse<String> scrape =
          client.send(
              HttpRequest.newBuilder(URI.create(metrics.url())).build(),
              HttpResponse.BodyHandlers.ofString());
      assertThat(metrics.url()).startsWith("http://127.0.0.1:").endsWith("/metrics");
      assertThat(scrape.statusCode()).isEqualTo(200);
      assertThat(scrape.headers().firstValue("content-type"))
          .hasValue("text/plain; version=0.0.4; charset=utf-8");
      assertThat(scrape.body()).contains("mock_llm_in_flight 0.0");
      URI other = URI.create(metrics.url().replace("/metrics", "/other"));
      assertThat(
              client
                  .send(HttpRequest.newBuilder(other).build(), HttpResponse.BodyHandlers.ofString())
                  .statusCode())
          .isEqualTo(404);
      assertThat(
              client
                  .send(
                      HttpRequest.newBuilder(URI.create(metrics.url()))
                          .POST(HttpRequest.BodyPublishers.noBody())
                          .build(),
                      HttpResponse.BodyHandlers.ofString())
                  .statusCode())
          .isEqualTo(405);
    }
  }
}
