package io.backpressure.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.backpressure.client.test.TestGates;
import io.backpressure.core.Cost;
import io.backpressure.core.ManualClock;
import io.backpressure.core.testing.RecordingGate;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The answer taps on their own, with a dialect that records what it is shown. */
class TapTest {

  /** A dialect whose requests are {"model", "stream"} and whose usage is {"in", "out"}. */
  private static final class TestDialect implements Dialect {
    final List<String> events = new ArrayList<>();

    @Override
    public boolean gates(String method, List<String> pathSegments) {
      return true;
    }

    @Override
    public ProviderCall read(ObjectNode body) {
      return new ProviderCall(
          body.path("model").asText(), 10, 100L, body.path("stream").asBoolean());
    }

    @Override
    public boolean prepare(ObjectNode body, ProviderCall call) {
      return false;
    }

    @Override
    public Optional<Usage> usage(JsonNode answer) {
      return answer.has("in")
          ? Optional.of(new Usage(answer.get("in").asLong(), answer.get("out").asLong()))
          : Optional.empty();
    }

    @Override
    public StreamTally tally(ProviderCall call) {
      return new StreamTally() {
        @Override
        public void onEvent(String event, String data) {
          events.add(event + "|" + data);
        }

        @Override
        public Usage usage(boolean complete) {
          return new Usage(call.promptTokens(), complete ? events.size() : 0);
        }
      };
    }
  }

  private final TestDialect dialect = new TestDialect();
  private final RecordingGate gate = TestGates.recording("t", 100, 10_000, new ManualClock());
  private final ClientGate clientGate = ClientGate.builder(dialect).gate(gate).build();

  private Exchange admit(String body) {
    try (GateContext.Scope scope = GateContext.of("acme", "P1").open()) {
      return clientGate.admit(body.getBytes(StandardCharsets.UTF_8));
    }
  }

  private static InputStream bytes(String text) {
    return new ByteArrayInputStream(text.getBytes(StandardCharsets.UTF_8));
  }

  @Test
  @SuppressWarnings("StringConcatToTextBlock") // the \r\n line ends are what is tested
  void splitsEventsAsTheEventStreamFormatSays() throws IOException {
    Exchange exchange = admit("{\"model\":\"m\",\"stream\":true}");
    exchange.answered(200, Map.of());
    String stream =
        ": a comment\r\nevent: first\r\ndata: one\r\ndata:two\r\n\r\n"
            + "data: {\"x\":1}\n\n"
            + "data: last, with no blank line";
    try (InputStream body = exchange.tap(bytes(stream))) {
      body.readAllBytes();
    }
    assertThat(dialect.events)
        .containsExactly("first|one\ntwo", "null|{\"x\":1}", "null|last, with no blank line");
    assertThat(gate.releases())
        .singleElement()
        .satisfies(
            release -> assertThat(release.actual()).isEqualTo(Cost.requests(1).tokens(10 + 3)));
  }

  @Test
  void aStreamClosedEarlyIsReleasedOnceAsCut() throws IOException {
    Exchange exchange = admit("{\"model\":\"m\",\"stream\":true}");
    exchange.answered(200, Map.of());
    InputStream body = exchange.tap(bytes("data: a\n\ndata: b\n\n"));
    body.read(new byte[4]);
    body.close();
    body.close();
    assertThat(gate.releases())
        .singleElement()
        .satisfies(release -> assertThat(release.actual()).isEqualTo(Cost.requests(1).tokens(10)));
  }

  @Test
  void aBodyClosedBeforeItsEndIsDrainedForItsUsage() throws IOException {
    Exchange exchange = admit("{\"model\":\"m\"}");
    exchange.answered(200, Map.of());
    InputStream body = exchange.tap(bytes("{\"in\":7,\"out\":5}"));
    body.read();
    body.close();
    assertThat(gate.releases())
        .singleElement()
        .satisfies(release -> assertThat(release.actual()).isEqualTo(Cost.requests(1).tokens(12)));
  }

  @Test
  void aBodyWithoutUsageIsReleasedWithTheDebitedCost() throws IOException {
    Exchange exchange = admit("{\"model\":\"m\"}");
    exchange.answered(200, Map.of());
    try (InputStream body = exchange.tap(bytes("not json"))) {
      body.readAllBytes();
    }
    assertThat(gate.releases())
        .singleElement()
        .satisfies(release -> assertThat(release.actual()).isEqualTo(release.grant().debited()));
  }

  @Test
  void aFailedAnswerIsReleasedAtOnceAndItsBodyLeftAlone() throws IOException {
    Exchange exchange = admit("{\"model\":\"m\"}");
    exchange.answered(503, Map.of("retry-after", List.of("2")));
    assertThat(exchange.released()).isTrue();
    InputStream raw = bytes("{\"error\":{}}");
    assertThat(exchange.tap(raw)).isSameAs(raw);
    exchange.failed(new IOException("late"));
    assertThat(gate.releases())
        .singleElement()
        .satisfies(release -> assertThat(release.actual()).isEqualTo(Cost.requests(1).tokens(0)));
  }

  @Test
  void refusesBodiesItCannotReadWithoutAskingTheGate() {
    assertThatThrownBy(() -> admit("[1, 2]"))
        .isInstanceOf(RejectedException.class)
        .hasMessageContaining("the request body must be a JSON object");
    assertThatThrownBy(() -> admit("{"))
        .isInstanceOf(RejectedException.class)
        .hasMessageContaining("the request body is not JSON");
    assertThat(gate.requests()).isEmpty();
  }
}
