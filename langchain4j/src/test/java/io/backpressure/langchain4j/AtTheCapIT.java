package io.backpressure.langchain4j;

import dev.langchain4j.http.client.jdk.JdkHttpClient;
import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.model.openai.OpenAiChatModel;
import io.backpressure.client.GateContext;
import io.backpressure.client.test.AtTheCap;
import io.backpressure.client.test.TenantLoad;
import io.backpressure.mock.MockProvider;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * Four tenants call the mock provider as fast as the gate lets them, in real time, through
 * LangChain4j's OpenAI model with its retries off, built as the README advises, with a {@link
 * SendCheckingHttpClientBuilder}: a call that reaches its HTTP client later than its admission's
 * send bound (a descheduled thread on a loaded machine) is admitted again before it leaves, and the
 * provider's rate-limit headers reach the gate. The provider, which caps requests in fixed
 * one-second windows, never answers 429 ({@link AtTheCap}).
 */
class AtTheCapIT {

  @Test
  void fourTenantsAtTheCapSeeNo429() throws Exception {
    try (MockProvider provider = MockProvider.start(AtTheCap.provider())) {
      ChatModel model =
          GatedChatModel.builder(
                  OpenAiChatModel.builder()
                      .baseUrl(provider.baseUrl())
                      .apiKey("sk-mock")
                      .modelName("gpt-4o-mini")
                      .maxRetries(0)
                      .timeout(Duration.ofSeconds(30))
                      .httpClientBuilder(
                          SendCheckingHttpClientBuilder.around(JdkHttpClient.builder()))
                      .build(),
                  AtTheCap.gate())
              .build();
      TenantLoad.Outcome outcome =
          AtTheCap.run(
              i -> model.chat("hello from " + GateContext.current().orElseThrow().tenant()));

      AtTheCap.assertNo429(outcome, provider);
    }
  }
}
