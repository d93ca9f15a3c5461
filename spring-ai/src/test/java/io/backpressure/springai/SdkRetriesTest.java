package io.backpressure.springai;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.backpressure.client.DeferredException;
import io.backpressure.core.InMemoryGate;
import io.backpressure.core.ManualClock;
import io.backpressure.core.Policy;
import io.backpressure.core.testing.RecordingGate;
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
 * With the model's retries off (the spring-ai README), a gated call answered 429 is sent once, and
 * the 429 reaches the gate, not the caller: asking again, the call is deferred.
 */
class SdkRetriesTest {

  @Test
  void aGatedCallAnswered429ReachesTheProviderOnce() throws Exception {
    RecordingGate gate =
        new RecordingGate(
            InMemoryGate.create(
                Policy.builder("openai/gpt-4o-mini")
                    .requestsPerSecond(100)
                    .tokensPerSecond(100_000)
                    .priority("P1", 1)
                    .build(),
                new ManualClock()));
    MockProviderConfig config =
        MockProviderConfig.builder()
            .latencyMs(0, 0)
            .requests(LimitSpec.of(WindowModel.FIXED, 1, Duration.ofMinutes(10)))
            .build();
    try (MockProvider provider = MockProvider.start(config)) {
      ChatClient chat =
          ChatClient.builder(MockOpenAi.chatModel(provider, Duration.ofSeconds(20)))
              .defaultAdvisors(BackpressureAdvisor.builder(gate).build())
              .build();

      ask(chat);
      assertThatThrownBy(() -> ask(chat)).isInstanceOf(DeferredException.class);

      assertThat(provider.records()).extracting(RequestRecord::status).containsExactly(200, 429);
      assertThat(gate.signals())
          .singleElement()
          .satisfies(s -> assertThat(s.status()).isEqualTo(429));
      assertThat(gate.requests()).hasSize(3);
      assertThat(gate.releases()).hasSize(2);
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
