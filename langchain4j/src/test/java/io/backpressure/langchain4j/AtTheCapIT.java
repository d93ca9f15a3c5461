package io.backpressure.langchain4j;

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
 * LangChain4j's OpenAI model with its retries off: the provider, which caps requests in fixed
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
