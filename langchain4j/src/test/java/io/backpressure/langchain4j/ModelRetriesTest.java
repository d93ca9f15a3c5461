package io.backpressure.langchain4j;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.model.chat.response.ChatResponse;
import dev.langchain4j.model.openai.OpenAiChatModel;
import io.backpressure.client.DeferredException;
import io.backpressure.client.GateContext;
import io.backpressure.client.test.MockAnswers;
import io.backpressure.client.test.TestGates;
import io.backpressure.core.ManualClock;
import io.backpressure.core.testing.RecordingGate;
import io.backpressure.mock.MockProvider;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** A gated LangChain4j model never retries on its own: the gate replaces those retries. */
class ModelRetriesTest {
  private final RecordingGate gate =
      TestGates.recording("openai/gpt-4o-mini", 100, 100_000, new ManualClock());

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
    try (MockProvider provider =
        MockProvider.start(MockAnswers.oneRequestPer(Duration.ofMinutes(10)))) {
      ChatModel model =
          GatedChatModel.builder(openAi(provider.baseUrl()).maxRetries(0).build(), gate)
              .defaultContext(GateContext.of("acme", "P1"))
              .build();

      model.chat("first");
      // The 429 goes to the gate, which holds the cap, so asking again defers the call.
      assertThatThrownBy(() -> model.chat("second")).isInstanceOf(DeferredException.class);

      TestGates.assertThe429Heard(gate, provider);
      assertThat(gate.requests()).hasSize(3);
    }
  }
}
