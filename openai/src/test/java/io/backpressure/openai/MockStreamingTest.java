package io.backpressure.openai;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

import com.openai.client.OpenAIClient;
import com.openai.core.http.StreamResponse;
import com.openai.errors.SseException;
import com.openai.models.chat.completions.ChatCompletionChunk;
import com.openai.models.chat.completions.ChatCompletionCreateParams;
import io.backpressure.client.DeferredException;
import io.backpressure.client.GateContext;
import io.backpressure.core.Cost;
import io.backpressure.core.InMemoryGate;
import io.backpressure.core.ManualClock;
import io.backpressure.core.Policy;
import io.backpressure.core.feedback.ProviderSignal;
import io.backpressure.core.testing.RecordingGate;
import io.backpressure.mock.CompletionTokens;
import io.backpressure.mock.Faults;
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

  /**
   * The mock's overloaded fault switched on after the first text: the stream ends with OpenAI's
   * {@code error} object in place of a chunk, which openai-java throws as its {@code SseException};
   * the gate hears it as the overload it stands for (a 503 before the stream would say the same)
   * and holds the target, so the next call is deferred without reaching the provider; the call is
   * released once with what was delivered, and the mock charges the cut stream only the tokens it
   * delivered.
   *
   * <p>Mutation tried: the stream tally reporting no refusal (the gate hears only the 200).
   */
  @Test
  void anOverloadUnderWayEndsTheStreamWithAnErrorChunkChargedWhatItDelivered() throws Exception {
    MockProviderConfig config =
        MockProviderConfig.builder()
            .latencyMs(4_000, 4_000)
            .completionTokens(new CompletionTokens.Fixed(40))
            .build();
    try (MockProvider provider = MockProvider.start(config);
        GateContext.Scope scope = GateContext.of("acme", "P1").open()) {
      OpenAIClient client = client(provider);
      try (StreamResponse<ChatCompletionChunk> stream =
          client.chat().completions().createStreaming(params())) {
        Iterator<ChatCompletionChunk> chunks = stream.stream().iterator();
        while (chunks.next().choices().stream()
            .allMatch(choice -> choice.delta().content().orElse("").isEmpty())) {
          // up to the first text
        }
        provider.setFaults(new Faults(false, 1, true));
        assertThatThrownBy(
                () -> {
                  while (chunks.hasNext()) {
                    chunks.next();
                  }
                })
            .isInstanceOf(SseException.class)
            .hasMessageContaining("overloaded");
        stream.close();
        provider.setFaults(new Faults(false, 1, false));
        assertThatThrownBy(() -> client.chat().completions().create(params()))
            .as("overloaded for everyone: the gate holds the target before the next call")
            .isInstanceOf(DeferredException.class);
      } finally {
        client.close();
      }
      assertThat(gate.signals())
          .extracting(ProviderSignal::status, ProviderSignal::meaning)
          .containsExactly(
              tuple(200, ProviderSignal.Meaning.ANSWERED),
              tuple(503, ProviderSignal.Meaning.OVERLOADED));
      assertThat(provider.records()).hasSize(1);
      RequestRecord record = provider.records().get(0);
      assertThat(record.status()).isEqualTo(200);
      assertThat(record.completionTokens()).isBetween(1L, 39L);
      assertThat(provider.summary().completionTokens()).isEqualTo(record.completionTokens());
      assertThat(gate.releases())
          .singleElement()
          .satisfies(
              release ->
                  assertThat(release.actual().amount("tokens"))
                      .isBetween(
                          record.promptTokens() + 1.0,
                          record.promptTokens() + record.completionTokens() + 1.0));
      assertThat(gate.outstanding()).isZero();
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
