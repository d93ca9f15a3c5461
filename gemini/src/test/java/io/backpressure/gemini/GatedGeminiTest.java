package io.backpressure.gemini;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

import com.google.genai.Client;
import com.google.genai.ResponseStream;
import com.google.genai.errors.ClientException;
import com.google.genai.errors.ServerException;
import com.google.genai.types.GenerateContentConfig;
import com.google.genai.types.GenerateContentResponse;
import io.backpressure.client.GateContext;
import io.backpressure.client.ProviderResponse;
import io.backpressure.client.test.MockAnswers;
import io.backpressure.client.test.TestGates;
import io.backpressure.core.Cost;
import io.backpressure.core.ManualClock;
import io.backpressure.core.feedback.ProviderSignal;
import io.backpressure.core.feedback.ProviderSignals;
import io.backpressure.core.testing.RecordingGate;
import io.backpressure.mock.Faults;
import io.backpressure.mock.MockProvider;
import io.backpressure.mock.MockProviderConfig;
import io.backpressure.mock.RequestRecord;
import java.time.Duration;
import java.time.Instant;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/** The real google-genai client, gated, against the mock provider's Gemini dialect. */
class GatedGeminiTest {

  private static final String MODEL = "gemini-2.5-flash";

  private final ManualClock clock = new ManualClock();
  private final List<ProviderResponse> answers = new CopyOnWriteArrayList<>();

  private RecordingGate gate() {
    return TestGates.recording("gemini/my-project", 100, 100_000, clock);
  }

  private Client client(MockProvider provider, RecordingGate gate) {
    return GatedGemini.builder()
        .gate(gate)
        .feedback(answers::add)
        .client(builder -> builder.apiKey("test-key"))
        .httpOptions(options -> options.baseUrl(provider.url()))
        .build();
  }

  private static GenerateContentConfig config() {
    return GenerateContentConfig.builder().maxOutputTokens(40).build();
  }

  @Test
  void admitsBeforeSendingAndReleasesWithTheUsageMetadata() throws Exception {
    RecordingGate gate = gate();
    try (MockProvider provider = MockProvider.start(MockAnswers.atOnce(25).build());
        GateContext.Scope scope = GateContext.of("acme", "P1").open()) {
      Client client = client(provider, gate);

      GenerateContentResponse reply =
          client.models.generateContent(MODEL, "hello gemini, how are you", config());

      assertThat(reply.text()).isNotBlank();
      assertThat(gate.requests())
          .singleElement()
          .satisfies(
              request -> {
                assertThat(request.tenant()).isEqualTo("acme");
                // 25 characters of text: 7 tokens at 4 characters each.
                assertThat(request.cost()).isEqualTo(Cost.requests(1).tokens(7));
                assertThat(request.maxTokens()).isEqualTo(40L);
              });
      RequestRecord record = provider.records().get(0);
      assertThat(record.status()).isEqualTo(200);
      long used = record.promptTokens() + record.completionTokens();
      assertThat(reply.usageMetadata().orElseThrow().totalTokenCount()).contains((int) used);
      assertThat(gate.releasedWith()).containsExactly(Cost.requests(1).tokens(used));
      assertThat(gate.releases()).allMatch(RecordingGate.Release::applied);
      assertThat(answers).singleElement().satisfies(a -> assertThat(a.model()).isEqualTo(MODEL));
    }
  }

  @Test
  void aStreamIsReleasedWithTheUsageOfItsLastChunk() throws Exception {
    RecordingGate gate = gate();
    try (MockProvider provider = MockProvider.start(MockAnswers.atOnce(25).build());
        GateContext.Scope scope = GateContext.of("acme", "P1").open()) {
      Client client = client(provider, gate);

      StringBuilder text = new StringBuilder();
      try (ResponseStream<GenerateContentResponse> stream =
          client.models.generateContentStream(MODEL, "stream me a story", config())) {
        for (GenerateContentResponse chunk : stream) {
          text.append(chunk.text() == null ? "" : chunk.text());
        }
      }

      assertThat(text).hasSize(25 * 4);
      TestGates.assertReleasedAsCounted(gate, provider);
    }
  }

  /**
   * The mock's overloaded fault switched on after the first text: the Gemini API ends the stream
   * with a 503 {@code UNAVAILABLE} status in place of a response, which google-genai throws as its
   * server exception; the feedback hears it as that 503, marked mid-stream, the call is released
   * once with the tokens delivered, and the mock charges the cut stream those tokens only.
   *
   * <p>Mutation tried: the stream tally reporting no refusal (the feedback hears only the 200).
   */
  @Test
  void anOverloadUnderWayEndsTheStreamAndIsChargedWhatItDelivered() throws Exception {
    RecordingGate gate = gate();
    try (MockProvider provider = MockProvider.start(MockAnswers.slowly(4_000, 40));
        GateContext.Scope scope = GateContext.of("acme", "P1").open()) {
      Client client = client(provider, gate);
      try (ResponseStream<GenerateContentResponse> stream =
          client.models.generateContentStream(MODEL, "stream me a story", config())) {
        Iterator<GenerateContentResponse> chunks = stream.iterator();
        while (chunks.next().text() == null) {
          // up to the first text
        }
        provider.setFaults(new Faults(false, 1, true));
        assertThatThrownBy(() -> chunks.forEachRemaining(next -> {}))
            .isInstanceOfSatisfying(
                ServerException.class, e -> assertThat(e.code()).isEqualTo(503));
      }

      assertThat(answers)
          .extracting(ProviderResponse::statusCode, ProviderResponse::midStream)
          .containsExactly(tuple(200, false), tuple(503, true));
      ProviderSignal signal =
          ProviderSignals.parse(503, Map.of(), answers.get(1).body(), Instant.now(), true);
      assertThat(signal.meaning()).isEqualTo(ProviderSignal.Meaning.OVERLOADED);
      RequestRecord record = TestGates.assertReleasedAsCounted(gate, provider);
      assertThat(record.completionTokens()).isBetween(1L, 39L);
      assertThat(provider.summary().completionTokens()).isEqualTo(record.completionTokens());
      assertThat(gate.outstanding()).isZero();
    }
  }

  @Test
  void a429ReachesTheCallerOnceAndItsRetryInfoTheFeedback() throws Exception {
    RecordingGate gate = gate();
    MockProviderConfig config = MockAnswers.oneRequestPer(Duration.ofMinutes(1), 25);
    try (MockProvider provider = MockProvider.start(config);
        GateContext.Scope scope = GateContext.of("acme", "P1").open()) {
      Client client = client(provider, gate);
      client.models.generateContent(MODEL, "first", config());

      assertThatThrownBy(() -> client.models.generateContent(MODEL, "second", config()))
          .isInstanceOfSatisfying(
              ClientException.class,
              e -> {
                assertThat(e.code()).isEqualTo(429);
                assertThat(e.status()).isEqualTo("RESOURCE_EXHAUSTED");
              });

      assertThat(provider.records()).as("the SDK's retries are off").hasSize(2);
      assertThat(gate.releases()).hasSize(2);
      ProviderResponse refused = answers.get(1);
      assertThat(refused.statusCode()).isEqualTo(429);
      assertThat(refused.headers()).doesNotContainKeys("retry-after", "retry-after-ms");
      ProviderSignal signal =
          ProviderSignals.parse(429, refused.headers(), refused.body(), Instant.now());
      assertThat(signal.meaning()).isEqualTo(ProviderSignal.Meaning.SLOW_DOWN);
      assertThat(signal.exhausted()).containsExactly("requests");
      assertThat(signal.retryAfter()).isPositive().isLessThanOrEqualTo(Duration.ofMinutes(1));
    }
  }

  @Test
  void aPerDayQuotaIsAStopUntilMidnightPacific() throws Exception {
    RecordingGate gate = gate();
    MockProviderConfig config = MockAnswers.oneRequestPer(Duration.ofDays(1), 25);
    try (MockProvider provider = MockProvider.start(config);
        GateContext.Scope scope = GateContext.of("acme", "P1").open()) {
      Client client = client(provider, gate);
      client.models.generateContent(MODEL, "first", config());
      assertThatThrownBy(() -> client.models.generateContent(MODEL, "second", config()))
          .isInstanceOf(ClientException.class);

      ProviderResponse refused = answers.get(1);
      Instant at = Instant.now();
      ProviderSignal signal = ProviderSignals.parse(429, refused.headers(), refused.body(), at);
      assertThat(signal.meaning()).isEqualTo(ProviderSignal.Meaning.STOP_UNTIL_RESET);
      assertThat(at.plus(signal.retryAfter()).atZone(java.time.ZoneId.of("America/Los_Angeles")))
          .satisfies(
              reset -> {
                assertThat(reset.toLocalTime()).isEqualTo(java.time.LocalTime.MIDNIGHT);
                assertThat(reset.toLocalDate())
                    .isEqualTo(
                        at.atZone(java.time.ZoneId.of("America/Los_Angeles"))
                            .toLocalDate()
                            .plusDays(1));
              });
    }
  }
}
