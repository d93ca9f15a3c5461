package io.backpressure.mock;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.util.function.ToDoubleFunction;

/**
 * The mock provider's totals as Prometheus meters, read from its {@link Summary} at scrape time:
 * {@code mock_llm_responses_total{status, dimension}}, {@code mock_llm_tokens_total{kind}} and
 * {@code mock_llm_in_flight}.
 */
final class MockMetrics {
  private MockMetrics() {}

  static PrometheusMeterRegistry registry(MockProvider provider) {
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    responses(registry, provider, "200", "none", s -> s.ok());
    responses(registry, provider, "429", "requests", s -> s.rateLimitedRequests());
    responses(registry, provider, "429", "tokens", s -> s.rateLimitedTokens());
    responses(registry, provider, "400", "none", s -> s.badRequests());
    responses(registry, provider, "500", "none", s -> s.serverErrors());
    tokens(registry, provider, "prompt", s -> s.promptTokens());
    tokens(registry, provider, "completion", s -> s.completionTokens());
    Gauge.builder("mock_llm.in_flight", provider, p -> p.summary().inFlight())
        .description("Calls waiting out their simulated latency")
        .register(registry);
    return registry;
  }

  private static void responses(
      PrometheusMeterRegistry registry,
      MockProvider provider,
      String status,
      String dimension,
      ToDoubleFunction<Summary> value) {
    FunctionCounter.builder("mock_llm.responses", provider, p -> value.applyAsDouble(p.summary()))
        .description("Answers by status; on 429, the dimension that bound")
        .tag("status", status)
        .tag("dimension", dimension)
        .register(registry);
  }

  private static void tokens(
      PrometheusMeterRegistry registry,
      MockProvider provider,
      String kind,
      ToDoubleFunction<Summary> value) {
    FunctionCounter.builder("mock_llm.tokens", provider, p -> value.applyAsDouble(p.summary()))
        .description("Tokens of successful calls")
        .tag("kind", kind)
        .register(registry);
  }
}
