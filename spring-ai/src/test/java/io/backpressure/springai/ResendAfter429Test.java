package io.backpressure.springai;

import static org.assertj.core.api.Assertions.assertThat;

import io.backpressure.core.InMemoryGate;
import io.backpressure.core.Policy;
import io.backpressure.mock.MockProvider;
import io.backpressure.mock.MockProviderConfig;
import io.backpressure.mock.RequestRecord;
import io.backpressure.mock.limit.LimitSpec;
import io.backpressure.mock.limit.WindowModel;
import io.backpressure.springai.test.MockOpenAi;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.springframework.ai.chat.client.ChatClient;

/**
 * A waiting advisor sends a call the provider refused with a 429 again through the rest of the
 * advisor chain: Spring AI's chain runs once per copy, so each send takes a fresh copy of it. In
 * real time: the resend waits out the provider's two-second window.
 */
class ResendAfter429Test {

  @Test
  void a429IsWaitedOutAndTheCallSentAgainThroughTheChain() throws Exception {
    // The gate allows a request a second; the provider one in any two seconds.
    InMemoryGate gate =
        InMemoryGate.create(
            Policy.builder("openai/gpt-4o-mini")
                .requestsPerSecond(1)
                .tokensPerSecond(100_000)
                .priority("P1", 1)
                .build());
    try (MockProvider provider =
        MockProvider.start(
            MockProviderConfig.builder()
                .latencyMs(0, 0)
                .requests(LimitSpec.of(WindowModel.SLIDING, 1, Duration.ofSeconds(2)))
                .build())) {
      ChatClient chat =
          ChatClient.builder(MockOpenAi.chatModel(provider, Duration.ofSeconds(20)))
              .defaultAdvisors(
                  BackpressureAdvisor.builder(gate).maxWait(Duration.ofSeconds(10)).build())
              .build();

      assertThat(ask(chat)).isNotNull();
      assertThat(ask(chat)).isNotNull();

      assertThat(provider.records())
          .extracting(RequestRecord::status)
          .startsWith(200, 429)
          .endsWith(200)
          .filteredOn(status -> status == 200)
          .hasSize(2);
    }
  }

  private static String ask(ChatClient chat) {
    return chat.prompt("hello")
        .advisors(
            a ->
                a.param(BackpressureAdvisor.TENANT, "acme")
                    .param(BackpressureAdvisor.PRIORITY, "P1"))
        .call()
        .content();
  }
}
