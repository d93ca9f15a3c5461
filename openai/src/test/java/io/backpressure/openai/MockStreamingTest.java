package io.backpressure.openai;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.openai.client.OpenAIClient;
import com.openai.core.http.StreamResponse;
import com.openai.errors.SseException;
import com.openai.models.chat.completions.ChatCompletionChunk;
import com.openai.models.chat.completions.ChatCompletionCreateParams;
import io.backpressure.client.DeferredException;
import io.backpressure.client.GateContext;
import io.backpressure.client.test.MockAnswers;
import io.backpressure.client.test.TestGates;
import io.backpressure.core.ManualClock;
import io.backpressure.core.feedback.ProviderSignal;
import io.backpressure.core.testing.RecordingGate;
import io.backpressure.mock.Faults;
import io.backpressure.mock.MockProvider;
import io.backpressure.mock.RequestRecord;
import java.time.Duration;
import java.util.Iterator;
import org.junit.jupiter.api.Test;

/** Streamed chat completions through the gated client against the mock provider's own streams. */
class MockStreamingTest {

  private final RecordingGate gate =
      TestGates.recording("openai/gpt-4o-mini", 10, 100_000, new ManualClock());

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
    try (MockProvider provider = MockProvider.start(MockAnswers.atOnce(40).build());
        GateContext.Scope scope = GateContext.of("acme", "P1").open()) {
      OpenAIClient client = client(provider);
      try (StreamResponse<ChatCompletionChunk> stream =
          client.chat().completions().createStreaming(params())) {
        assertThat(stream.stream().count()).isGreaterThan(2);
      } finally {
        client.close();
      }
      RequestRecord record = TestGates.assertReleasedAsCounted(gate, provider);
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
    try (MockProvider provider = MockProvider.start(MockAnswers.slowly(4_000, 40));
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
        assertThatThrownBy(() -> chunks.forEachRemaining(next -> {}))
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
      TestGates.assertHeardMidStream(gate, 503, ProviderSignal.Meaning.OVERLOADED);
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
    try (MockProvider provider = MockProvider.start(MockAnswers.slowly(3_000, 40));
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
