package io.backpressure.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class PrometheusEndpointTest {
  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  @Test
  void servesTheRegistryAtMetricsAndNothingElse() throws Exception {
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    DashboardTest.scenario(registry);
    String url;
    try (PrometheusEndpoint endpoint = PrometheusEndpoint.start(registry, "127.0.0.1", 0)) {
      url = endpoint.url();
      assertThat(url).isEqualTo("http://127.0.0.1:" + endpoint.port() + "/metrics");

      HttpResponse<String> scrape = get(url, "GET");
      assertThat(scrape.statusCode()).isEqualTo(200);
      assertThat(scrape.headers().firstValue("Content-Type"))
          .hasValueSatisfying(type -> assertThat(type).startsWith("text/plain; version=0.0.4"));
      assertThat(scrape.body())
          .contains(
              "backpressure_admissions_total{outcome=\"admitted\",priority=\"P1\",reason=\"none\",target=\"openai/gpt-4o\"} 2.0");

      String base = url.substring(0, url.length() - "/metrics".length());
      assertThat(get(base + "/other", "GET").statusCode()).isEqualTo(404);
      HttpResponse<String> post = get(url, "POST");
      assertThat(post.statusCode()).isEqualTo(405);
      assertThat(post.headers().firstValue("Allow")).hasValue("GET, HEAD");
    }
    assertThatThrownBy(() -> get(url, "GET")).isInstanceOf(ConnectException.class);
  }

  @Test
  void rejectsAPortOutOfRange() {
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    assertThatThrownBy(() -> PrometheusEndpoint.start(registry, "127.0.0.1", 70_000))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("port must be in the range [0, 65535], got 70000");
  }

  private HttpResponse<String> get(String url, String method) throws Exception {
    HttpRequest request =
        HttpRequest.newBuilder(URI.create(url))
            .timeout(Duration.ofSeconds(5))
            .method(method, HttpRequest.BodyPublishers.noBody())
            .build();
    return http.send(request, HttpResponse.BodyHandlers.ofString());
  }
}
