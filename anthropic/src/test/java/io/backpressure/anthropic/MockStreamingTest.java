package io.backpressure.anthropic;

import static org.assertj.core.api.Assertions.assertThat;

import com.anthropic.client.AnthropicClient;
import com.anthropic.core.http.StreamResponse;
import com.anthropic.models.messages.MessageCreateParams;
import com.anthropic.models.messages.RawMessageStreamEvent;
import io.backpressure.client.CostModel;
import io.backpressure.client.GateContext;
import io.backpressure.client.test.MockAnswers;
import io.backpressure.core.Cost;
import io.backpressure.core.InMemoryGate;
import io.backpressure.core.ManualClock;
import io.backpressure.core.Policy;
import io.backpressure.core.testing.RecordingGate;
import io.backpressure.mock.MockProvider;
import io.backpressure.mock.RequestRecord;
import java.time.Duration;
import java.util.Iterator;
import org.junit.jupiter.api.Test;

/** Streamed messages through the gated client against the mock provider's own streams. */
class MockStreamingTest {

  private final RecordingGate gate =
      new RecordingGate(
          InMemoryGate.create(
              Policy.builder("anthropic/claude-haiku")
                  .requestsPerSecond(10)
                  .dimension("input_tokens", 1_000, 1_000)
                  .dimension("output_tokens", 1_000, 1_000)
                  .priority("P1", 1)
                  .build(),
              new ManualClock()));

  private AnthropicClient client(MockProvider provider) {
    return GatedAnthropic.builder()
        .gate(gate)
        .costModel(CostModel.SEPARATE_INPUT_OUTPUT)
        .clientOptions(
            options ->
                options
                    .baseUrl(provider.url())
                    .apiKey("sk-ant-test")
                    .timeout(Duration.ofSeconds(20)))
        .build();
  }

  private static MessageCreateParams params() {
    return MessageCreateParams.builder()
        .model("claude-haiku-4-5")
        .maxTokens(60)
        .addUserMessage("x".repeat(70))
        .build();
  }

  @Test
  void releasesWithTheInputOfMessageStartAndTheOutputOfMessageDelta() throws Exception {
    try (MockProvider provider = MockProvider.start(MockAnswers.atOnce(40).build());
        GateContext.Scope scope = GateContext.of("acme", "P1").open()) {
      AnthropicClient client = client(provider);
      try (StreamResponse<RawMessageStreamEvent> stream =
          client.messages().createStreaming(params())) {
        assertThat(stream.stream().filter(RawMessageStreamEvent::isMessageStop).count())
            .isEqualTo(1);
      } finally {
        client.close();
      }
      RequestRecord record = provider.records().get(0);
      assertThat(gate.releasedWith())
          .containsExactly(
              Cost.requests(1)
                  .with("input_tokens", record.promptTokens())
                  .with("output_tokens", record.completionTokens()));
    }
  }

  @Test
  void aStreamCancelledWhileTheMockIsStillWritingReleasesTheReportedInput() throws Exception {
    try (MockProvider provider = MockProvider.start(MockAnswers.slowly(3_000, 40));
        GateContext.Scope scope = GateContext.of("acme", "P1").open()) {
      AnthropicClient client = client(provider);
      long reportedInput;
      try (StreamResponse<RawMessageStreamEvent> stream =
          client.messages().createStreaming(params())) {
        Iterator<RawMessageStreamEvent> events = stream.stream().iterator();
        reportedInput = events.next().asMessageStart().message().usage().inputTokens();
        assertThat(gate.releases()).isEmpty();
      } finally {
        client.close();
      }
      assertThat(gate.releases())
          .singleElement()
          .satisfies(
              release -> {
                assertThat(release.actual().amount("input_tokens")).isEqualTo(reportedInput);
                assertThat(release.actual().amount("output_tokens")).isLessThan(40);
              });
      assertThat(gate.outstanding()).isZero();
    }
  }
}
