package io.backpressure.langchain4j;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.model.chat.response.ChatResponse;
import dev.langchain4j.model.openai.OpenAiChatModel;
import io.backpressure.client.DeferredException;
import io.backpressure.client.GateContext;
import io.backpressure.core.InMemoryGate;
import io.backpressure.core.ManualClock;
import io.backpressure.core.Policy;
import io.backpressure.core.testing.RecordingGate;
import io.backpressure.mock.MockProvider;
import io.backpressure.mock.MockProviderConfig;
import io.backpressure.mock.RequestRecord;
import io.backpressure.mock.limit.LimitSpec;
import io.backpressure.mock.limit.WindowModel;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** A gated LangChain4j model never retries on its own: the gate replaces those retries. */
class ModelRetriesTest {
  private final RecordingGate gate =
      new RecordingGate(
          InMemoryGate.create(
              Policy.builder("openai/gpt-4o-mini")
                  .requestsPerSecond(100)
                  .tokensPerSecond(100_000)
                  .priority("P1", 1)
                  .build(),
              new ManualClock()));

  private static OpenAiChatModel.OpenAiChatModelBuilder openAi(String baseUrl) {
    return OpenAiChatModel.builder()
        .baseUrl(baseUrl)
        .apiKey("sk-mock")
        .modelName("gpt-4o-mini")
        .timeout(Duration.ofSeconds(20));
  }

  @Test
  void wrappingAModelThatRetriesOnItsOwnFailsNamingMaxRetries() {
    assertThat(ModelRetries.of(openAi("http://127.0.0.1:1/v1").build()))
        .hasValue(2); // LangChain4j's default
    assertThatThrownBy(
            () -> GatedChatModel.builder(openAi("http://127.0.0.1:1/v1").build(), gate).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("maxRetries=2")
        .hasMessageContaining(".maxRetries(0)");
    assertThatThrownBy(
            () ->
                GatedChatModel.builder(openAi("http://127.0.0.1:1/v1").maxRetries(1).build(), gate)
                    .build())
        .hasMessageContaining("maxRetries=1");
  }

  @Test
  void aModelWithoutTheFieldIsTakenAsItIs() {
    ChatModel plain =
        new ChatModel() {
          @Override
          public ChatResponse doChat(ChatRequest request) {
            throw new UnsupportedOperationException();
          }
        };
    assertThat(ModelRetries.of(plain)).isEmpty();
    assertThat(GatedChatModel.builder(plain, gate).build()).isNotNull();
  }

  @Test
  void aGatedCallAnswered429ReachesTheProviderOnceAndTheCallerAsADeferral() throws Exception {
    MockProviderConfig config =
        MockProviderConfig.builder()
            .latencyMs(0, 0)
            .requests(LimitSpec.of(WindowModel.FIXED, 1, Duration.ofMinutes(10)))
            .build();
    try (MockProvider provider = MockProvider.start(config)) {
      ChatModel model =
          GatedChatModel.builder(openAi(provider.baseUrl()).maxRetries(0).build(), gate)
              .defaultContext(GateContext.of("acme", "P1"))
              .build();

      model.chat("first");
      // The 429 goes to the gate, which holds the cap, so asking again defers the call.
      assertThatThrownBy(() -> model.chat("second")).isInstanceOf(DeferredException.class);

      assertThat(provider.records()).extracting(RequestRecord::status).containsExactly(200, 429);
      assertThat(gate.signals())
          .singleElement()
          .satisfies(s -> assertThat(s.status()).isEqualTo(429));
      assertThat(gate.requests()).hasSize(3);
      assertThat(gate.releases()).hasSize(2);
    }
  }
}
