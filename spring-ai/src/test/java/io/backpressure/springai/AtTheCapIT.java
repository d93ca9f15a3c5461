package io.backpressure.springai;

import io.backpressure.client.GateContext;
import io.backpressure.client.test.AtTheCap;
import io.backpressure.client.test.TenantLoad;
import io.backpressure.mock.MockProvider;
import io.backpressure.springai.test.MockOpenAi;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.springframework.ai.chat.client.ChatClient;

/**
 * Four tenants call the mock provider as fast as the gate lets them, in real time, through one
 * {@code ChatClient} with the advisor and Spring AI's OpenAI model with its retries off: the
 * provider, which caps requests in fixed one-second windows, never answers 429 ({@link AtTheCap}).
 * The advisor takes each call's caller from the scope the tenant opens.
 */
class AtTheCapIT {

  @Test
  void fourTenantsAtTheCapSeeNo429() throws Exception {
    try (MockProvider provider = MockProvider.start(AtTheCap.provider())) {
      ChatClient chat =
          ChatClient.builder(MockOpenAi.chatModel(provider, Duration.ofSeconds(30)))
              .defaultAdvisors(BackpressureAdvisor.builder(AtTheCap.gate()).build())
              .build();
      TenantLoad.Outcome outcome =
          AtTheCap.run(
              i ->
                  chat.prompt("hello from " + GateContext.current().orElseThrow().tenant())
                      .call()
                      .content());

      AtTheCap.assertNo429(outcome, provider);
    }
  }
}
