package io.backpressure.openai;

import static org.assertj.core.api.Assertions.assertThat;

import com.openai.client.OpenAIClient;
import com.openai.core.http.StreamResponse;
import com.openai.models.chat.completions.ChatCompletionChunk;
import com.openai.models.chat.completions.ChatCompletionCreateParams;
import io.backpressure.client.GateContext;
import io.backpressure.core.Cost;
import io.backpressure.core.InMemoryGate;
import io.backpressure.core.ManualClock;
import io.backpressure.core.Policy;
import io.backpressure.core.testing.RecordingGate;
import io.backpressure.mock.CompletionTokens;
import io.backpressure.mock.MockProvider;
import io.backpressure.mock.MockProviderConfig;
import io.backpressure.mock.RequestRecord;
import java.time.Duration;
import java.util.Iterator;
import org.junit.jupiter.api.Test;

/** Streamed chat completions through the gated client against the mock provider's own streams. */
class MockStreamingTest {

  private final RecordingGate gate =
      new RecordingGate(
          InMemoryGate.create(
              Policy.builder("openai/gpt-4o-mini")
                  .requestsPerSecond(10)
                  .tokensPerSecond(100_000)
                  .priority("P1", 1)
                  .build(),
              new ManualClock()));

  private OpenAIClient client(MockProvider provider) {
    return GatedOpenAI.builder()
        .gate(gate)
        .clientOptions(
            options ->
                options
                    .baseUrl(provider.baseUrl())
                    .apiKey("sk-test")
                    .timeout(Duration.ofSeconds(20)))
        .build();
  }

  private static ChatCompletionCreateParams params() {
    return ChatCompletionCreateParams.builder()
        .model("gpt-4o-mini")
        .addUserMessage("x".repeat(100))
        .maxCompletionTokens(60)
        .build();
  }

  @Test
  void releasesWithTheUsageTheMockStreamsAtTheEnd() throws Exception {
    MockProviderConfig config =
        MockProviderConfig.builder()
            .latencyMs(0, 0)
            .completionTokens(new CompletionTokens.Fixed(40))
            .build();
    try (MockProvider provider = MockProvider.start(config);
        GateContext.Scope scope = GateContext.of("acme", "P1").open()) {
      OpenAIClient client = client(provider);
      try (StreamResponse<ChatCompletionChunk> stream =
          client.chat().completions().createStreaming(params())) {
        assertThat(stream.stream().count()).isGreaterThan(2);
      } finally {
        client.close();
      }
      RequestRecord record = provider.records().get(0);
      assertThat(gate.releases())
          .singleElement()
          .satisfies(
              release ->
                  assertThat(release.actual())
                      .isEqualTo(
                          Cost.requests(1)
                              .tokens(record.promptTokens() + record.completionTokens())));
      assertThat(record.completionTokens()).isEqualTo(40);
    }
  }

  @Test
  void aStreamCancelledWhileTheMockIsStillWritingReleasesOnce() throws Exception {
    MockProviderConfig config =
        MockProviderConfig.builder()
            .latencyMs(3_000, 3_000)
            .completionTokens(new CompletionTokens.Fixed(40))
            .build();
    try (MockProvider provider = MockProvider.start(config);
        GateContext.Scope scope = GateContext.of("acme", "P1").open()) {
      OpenAIClient client = client(provider);
      try (StreamResponse<ChatCompletionChunk> stream =
          client.chat().completions().createStreaming(params())) {
        Iterator<ChatCompletionChunk> chunks = stream.stream().iterator();
        chunks.next();
        assertThat(gate.releases()).isEmpty();
      } finally {
        client.close();
      }
      // Cancelled after the opening chunk: the prompt estimate (3 + 1 + 13 + 3 in o200k_base) and
      // no streamed text yet.
      assertThat(gate.releases())
          .singleElement()
          .satisfies(release -> assertThat(release.actual().amount("tokens")).isEqualTo(20));
      assertThat(gate.outstanding()).isZero();
    }
  }
}
