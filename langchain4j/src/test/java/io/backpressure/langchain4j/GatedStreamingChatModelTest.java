package io.backpressure.langchain4j;

import static org.assertj.core.api.Assertions.assertThat;

import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.model.chat.StreamingChatModel;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.model.chat.response.ChatResponse;
import dev.langchain4j.model.chat.response.StreamingChatResponseHandler;
import dev.langchain4j.model.openai.OpenAiStreamingChatModel;
import dev.langchain4j.model.output.TokenUsage;
import io.backpressure.client.DeferredException;
import io.backpressure.client.GateContext;
import io.backpressure.client.test.TestGates;
import io.backpressure.core.Cost;
import io.backpressure.core.ManualClock;
import io.backpressure.core.testing.RecordingGate;
import io.backpressure.mock.Faults;
import io.backpressure.mock.MockProvider;
import io.backpressure.mock.MockProviderConfig;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class GatedStreamingChatModelTest {
  private final ManualClock clock = new ManualClock();
  private final RecordingGate gate = TestGates.recording("openai/gpt-4o-mini", 1, 10_000, clock);

  /** A provider that streams two parts and reports its usage on the final response. */
  private static final StreamingChatModel TWO_PARTS =
      new StreamingChatModel() {
        @Override
        public void doChat(ChatRequest request, StreamingChatResponseHandler handler) {
          handler.onPartialResponse("Hel");
          handler.onPartialResponse("lo");
          handler.onCompleteResponse(
              ChatResponse.builder()
                  .aiMessage(AiMessage.from("Hello"))
                  .tokenUsage(new TokenUsage(12, 2))
                  .build());
        }
      };

  /** Collects a stream's events. */
  private static final class Collector implements StreamingChatResponseHandler {
    final List<String> parts = new ArrayList<>();
    final CompletableFuture<ChatResponse> end = new CompletableFuture<>();

    @Override
    public void onPartialResponse(String part) {
      parts.add(part);
    }

    @Override
    public void onCompleteResponse(ChatResponse response) {
      end.complete(response);
    }

    @Override
    public void onError(Throwable error) {
      end.completeExceptionally(error);
    }

    Throwable error() throws Exception {
      return end.handle((response, error) -> error).get(20, TimeUnit.SECONDS);
    }
  }

  @Test
  void forwardsTheStreamAndReleasesWithTheFinalUsage() throws Exception {
    StreamingChatModel model = GatedStreamingChatModel.builder(TWO_PARTS, gate).build();
    Collector collector = new Collector();

    GateContext.of("acme", "P1").run(() -> model.chat("x".repeat(40), collector));

    assertThat(collector.end.get(1, TimeUnit.SECONDS).aiMessage().text()).isEqualTo("Hello");
    assertThat(collector.parts).containsExactly("Hel", "lo");
    assertThat(gate.requests())
        .singleElement()
        .satisfies(r -> assertThat(r.cost()).isEqualTo(Cost.requests(1).tokens(10)));
    assertThat(gate.releasedWith()).containsExactly(Cost.requests(1).tokens(14));
  }

  @Test
  void aDeferralReachesTheHandlerCarryingDelta() throws Exception {
    StreamingChatModel model =
        GatedStreamingChatModel.builder(TWO_PARTS, gate)
            .defaultContext(GateContext.of("acme", "P1"))
            .build();
    model.chat("first", new Collector());
    Collector second = new Collector();

    model.chat("second", second);

    assertThat(second.error())
        .isInstanceOfSatisfying(
            DeferredException.class,
            e ->
                assertThat(e.retryAfter()).isPositive().isLessThanOrEqualTo(Duration.ofSeconds(1)));
    assertThat(second.parts).isEmpty();
    assertThat(gate.requests()).hasSize(2);
    assertThat(gate.releasedWith()).hasSize(1);
  }

  @Test
  void aStreamTheProviderRefusesIsReleasedWithoutTokens() throws Exception {
    // The mock provider, switched to answering 500s, refuses the stream before its first event.
    try (MockProvider provider =
        MockProvider.start(MockProviderConfig.builder().latencyMs(0, 0).build())) {
      provider.setFaults(new Faults(true, 1.0));
      StreamingChatModel openAi =
          OpenAiStreamingChatModel.builder()
              .baseUrl(provider.baseUrl())
              .apiKey("sk-mock")
              .modelName("gpt-4o-mini")
              .timeout(Duration.ofSeconds(20))
              .build();
      StreamingChatModel model =
          GatedStreamingChatModel.builder(openAi, gate)
              .defaultContext(GateContext.of("acme", "P1"))
              .build();
      Collector collector = new Collector();

      model.chat("x".repeat(40), collector);

      assertThat(collector.error()).isNotNull();
      assertThat(provider.records())
          .isNotEmpty()
          .allSatisfy(r -> assertThat(r.status()).isEqualTo(500));
      assertThat(gate.releasedWith()).containsExactly(Cost.requests(1).tokens(0));
    }
  }
}
