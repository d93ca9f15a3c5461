package io.backpressure.springai;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.backpressure.client.DeferredException;
import io.backpressure.client.test.MockAnswers;
import io.backpressure.client.test.TestGates;
import io.backpressure.core.ManualClock;
import io.backpressure.core.testing.RecordingGate;
import io.backpressure.mock.MockProvider;
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
    RecordingGate gate = TestGates.recording("openai/gpt-4o-mini", 100, 100_000, new ManualClock());
    try (MockProvider provider =
        MockProvider.start(MockAnswers.oneRequestPer(Duration.ofMinutes(10)))) {
      ChatClient chat =
          ChatClient.builder(MockOpenAi.chatModel(provider, Duration.ofSeconds(20)))
              .defaultAdvisors(BackpressureAdvisor.builder(gate).build())
              .build();

      ask(chat);
      assertThatThrownBy(() -> ask(chat)).isInstanceOf(DeferredException.class);

      TestGates.assertThe429Heard(gate, provider);
      assertThat(gate.requests()).hasSize(3);
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
