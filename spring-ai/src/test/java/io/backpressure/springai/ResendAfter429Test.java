package io.backpressure.springai;

import static org.assertj.core.api.Assertions.assertThat;

import io.backpressure.core.Admission;
import io.backpressure.core.AdmissionRequest;
import io.backpressure.core.Cost;
import io.backpressure.core.Gate;
import io.backpressure.core.Grant;
import io.backpressure.core.InMemoryGate;
import io.backpressure.core.Policy;
import io.backpressure.core.feedback.ProviderSignal;
import io.backpressure.mock.MockProvider;
import io.backpressure.mock.MockProviderConfig;
import io.backpressure.mock.RequestRecord;
import io.backpressure.mock.limit.Caps;
import io.backpressure.mock.limit.LimitSpec;
import io.backpressure.mock.limit.WindowModel;
import io.backpressure.springai.test.MockOpenAi;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.springframework.ai.chat.client.ChatClient;

/**
 * A waiting advisor sends a call the provider refused with a 429 again through the rest of the
 * advisor chain: Spring AI's chain runs once per copy, so each send takes a fresh copy of it.
 *
 * <p>The provider allows one request an hour, so the second call meets a 429 however long the
 * machine takes between the two calls; the gate hears it (the model's exception for a 429, which
 * {@code RateLimits.byName()} recognises, read as a one-second hold), and while the call waits out
 * that hold on the calling thread the provider's window passes (its cap is lifted when the gate
 * hears the 429), so the call sent again is answered. What is asserted is the order of the answers,
 * not how long anything took.
 */
class ResendAfter429Test {

  @Test
  void a429IsWaitedOutAndTheCallSentAgainThroughTheChain() throws Exception {
    try (MockProvider provider =
        MockProvider.start(
            MockProviderConfig.builder()
                .latencyMs(0, 0)
                .requests(LimitSpec.of(WindowModel.FIXED, 1, Duration.ofHours(1)))
                .build())) {
      List<ProviderSignal> heard = new CopyOnWriteArrayList<>();
      Gate gate =
          windowPassesOn429(
              InMemoryGate.create(
                  Policy.builder("openai/gpt-4o-mini")
                      .requestsPerSecond(1)
                      .tokensPerSecond(100_000)
                      .priority("P1", 1)
                      .build()),
              provider,
              heard);
      ChatClient chat =
          ChatClient.builder(MockOpenAi.chatModel(provider, Duration.ofSeconds(20)))
              .defaultAdvisors(
                  BackpressureAdvisor.builder(gate).maxWait(Duration.ofSeconds(10)).build())
              .build();

      assertThat(ask(chat)).isNotNull();
      assertThat(ask(chat)).isNotNull();

      assertThat(provider.records())
          .extracting(RequestRecord::status)
          .containsExactly(200, 429, 200);
      assertThat(heard)
          .singleElement()
          .satisfies(signal -> assertThat(signal.status()).isEqualTo(429));
    }
  }

  /**
   * {@code gate}, recording what it hears in {@code heard}, and letting {@code provider}'s window
   * pass (lifting its cap) when it hears a 429.
   */
  private static Gate windowPassesOn429(
      Gate gate, MockProvider provider, List<ProviderSignal> heard) {
    return new Gate() {
      @Override
      public String target() {
        return gate.target();
      }

      @Override
      public Admission admit(AdmissionRequest request) {
        return gate.admit(request);
      }

      @Override
      public boolean release(Grant grant, Cost actual) {
        return gate.release(grant, actual);
      }

      @Override
      public void feedback(@Nullable Grant grant, ProviderSignal signal) {
        heard.add(signal);
        if (signal.status() == 429) {
          provider.setCaps(new Caps(1_000.0, null));
        }
        gate.feedback(grant, signal);
      }

      @Override
      public @Nullable Duration sendWithin() {
        return gate.sendWithin();
      }
    };
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
