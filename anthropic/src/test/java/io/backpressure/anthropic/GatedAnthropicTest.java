package io.backpressure.anthropic;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.anthropic.client.AnthropicClient;
import com.anthropic.core.http.StreamResponse;
import com.anthropic.errors.AnthropicServiceException;
import com.anthropic.errors.OverloadedException;
import com.anthropic.models.messages.Message;
import com.anthropic.models.messages.MessageCreateParams;
import com.anthropic.models.messages.RawMessageStreamEvent;
import io.backpressure.client.CostModel;
import io.backpressure.client.DeferredException;
import io.backpressure.client.GateContext;
import io.backpressure.client.ProviderFeedback;
import io.backpressure.client.ProviderResponse;
import io.backpressure.client.RateLimits;
import io.backpressure.client.RejectedException;
import io.backpressure.client.test.LoopbackResponder;
import io.backpressure.client.test.MockAnswers;
import io.backpressure.client.test.TestGates;
import io.backpressure.core.Cost;
import io.backpressure.core.InMemoryGate;
import io.backpressure.core.ManualClock;
import io.backpressure.core.Policy;
import io.backpressure.core.RejectReason;
import io.backpressure.core.feedback.ProviderSignal;
import io.backpressure.core.testing.RecordingGate;
import io.backpressure.mock.CompletionTokens;
import io.backpressure.mock.Faults;
import io.backpressure.mock.MockProvider;
import io.backpressure.mock.MockProviderConfig;
import java.time.Duration;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * The real anthropic-java client, gated, against the mock provider and a loopback SSE responder.
 */
class GatedAnthropicTest {

  private static final String MODEL = "claude-haiku-4-5";

  private final ManualClock clock = new ManualClock();
  private final List<ProviderResponse> answers = new CopyOnWriteArrayList<>();

  /** A gate capping Anthropic's three limits: requests, input tokens and output tokens. */
  private RecordingGate separateLimits(double outputTokensBurst) {
    Policy policy =
        Policy.builder("anthropic/claude-haiku")
            // The floor the gate keeps when it adopts the mock's limit of one request per ten
            // minutes is a twentieth of the cap, half a request per second: the burst the rule
            // decides with is clamped to one request.
            .requestsPerSecond(10)
            .dimension("input_tokens", 1_000, 1_000)
            .dimension("output_tokens", 100, outputTokensBurst)
            .priority("P1", 1)
            .build();
    return new RecordingGate(InMemoryGate.create(policy, clock));
  }

  private AnthropicClient client(String baseUrl, RecordingGate gate) {
    return GatedAnthropic.builder()
        .gate(gate)
        .costModel(CostModel.SEPARATE_INPUT_OUTPUT)
        .feedback(ProviderFeedback.TO_CALLS_GATE.andThen(answers::add))
        .clientOptions(
            options ->
                options
                    .baseUrl(baseUrl)
                    .apiKey("sk-ant-test")
                    .maxRetries(5)
                    .timeout(Duration.ofSeconds(20)))
        .build();
  }

  private static MessageCreateParams params(long maxTokens) {
    return MessageCreateParams.builder()
        .model(MODEL)
        .maxTokens(maxTokens)
        .system("Be brief.")
        .addUserMessage("x".repeat(70))
        .build();
  }

  @Test
  void reservesTheOutputLimitAndReleasesWithTheAnswersInputAndOutput() throws Exception {
    RecordingGate gate = separateLimits(500);
    try (MockProvider provider = MockProvider.start(MockAnswers.atOnce(30).build());
        GateContext.Scope scope = GateContext.of("acme", "P1").open()) {
      AnthropicClient client = client(provider.url(), gate);
      try {
        Message reply = client.messages().create(params(200));

        // system: 3 + ⌈6/3.5⌉ + ⌈9/3.5⌉ = 8; user: 3 + 2 + 20 = 25; priming 3
        assertThat(gate.requests())
            .singleElement()
            .satisfies(
                request ->
                    assertThat(request.cost())
                        .isEqualTo(
                            Cost.requests(1).with("input_tokens", 36).with("output_tokens", 200)));
        assertThat(gate.releasedWith())
            .containsExactly(
                Cost.requests(1)
                    .with("input_tokens", reply.usage().inputTokens())
                    .with("output_tokens", reply.usage().outputTokens()));
        assertThat(reply.usage().outputTokens()).isEqualTo(30);
        assertThat(answers)
            .singleElement()
            .satisfies(
                answer -> assertThat(answer.header("anthropic-ratelimit-requests-limit")).isNull());
      } finally {
        client.close();
      }
    }
  }

  @Test
  void theOutputTokenLimitDefersACallBeforeItIsSent() throws Exception {
    RecordingGate gate = separateLimits(300);
    try (MockProvider provider =
            MockProvider.start(MockProviderConfig.builder().latencyMs(0, 0).build());
        GateContext.Scope scope = GateContext.of("acme", "P1").open()) {
      AnthropicClient client = client(provider.url(), gate);
      try {
        client.messages().create(params(250));
        clock.advance(Duration.ofMillis(10));
        assertThatThrownBy(() -> client.messages().create(params(250)))
            .isInstanceOfSatisfying(
                DeferredException.class, e -> assertThat(e.retryAfter()).isPositive());
        assertThat(provider.records()).hasSize(1);
      } finally {
        client.close();
      }
    }
  }

  /**
   * The first answer's headers say the provider's allowance is spent (limit 1, remaining 0): with
   * feedback on, the default, the gate defers the second call before it is sent, so the provider
   * never answers 429.
   *
   * <p>Mutation tried: the client gate's default feedback back to none (the second call is sent).
   */
  @Test
  void theRateLimitHeadersReachTheGateWhichDefersTheNextCallBeforeA429() throws Exception {
    RecordingGate gate = separateLimits(5_000);
    try (MockProvider provider =
            MockProvider.start(MockAnswers.oneRequestPer(Duration.ofMinutes(10)));
        GateContext.Scope scope = GateContext.of("acme", "P1").open()) {
      AnthropicClient client = client(provider.url(), gate);
      try {
        client.messages().create(params(20));
        assertThatThrownBy(() -> client.messages().create(params(20)))
            .isInstanceOfSatisfying(
                DeferredException.class, e -> assertThat(e.retryAfter()).isPositive());

        assertThat(provider.records()).extracting(r -> r.status()).containsExactly(200);
        ProviderResponse spent = answers.get(0);
        assertThat(spent.header("anthropic-ratelimit-requests-limit")).isEqualTo("1");
        assertThat(spent.header("anthropic-ratelimit-requests-remaining")).isEqualTo("0");
        assertThat(gate.signals()).hasSize(1);
        assertThat(gate.outstanding()).isZero();
      } finally {
        client.close();
      }
    }
  }

  /**
   * Anthropic's 429 {@code rate_limit_error} without {@code retry-after}, its answer to a reached
   * spend limit: released with nothing generated, reported, and read as a stop, so the call's
   * resend is refused at once with the stop's reset instead of being sent again.
   */
  @Test
  void a429WithoutHeadersIsReleasedReportedAndRefusedUntilTheStopResets() throws Exception {
    RecordingGate gate = separateLimits(5_000);
    String error =
        "{\"type\":\"error\",\"error\":{\"type\":\"rate_limit_error\",\"message\":\"slow down\"}}";
    try (LoopbackResponder responder =
            LoopbackResponder.start(LoopbackResponder.Answer.json(429, Map.of(), error));
        GateContext.Scope scope = GateContext.of("acme", "P1").open()) {
      AnthropicClient client = client(responder.baseUrl(), gate);
      try {
        assertThatThrownBy(() -> client.messages().create(params(20)))
            .isInstanceOfSatisfying(
                RejectedException.class,
                e -> {
                  assertThat(e.reason()).isEqualTo(RejectReason.LIMIT_REACHED);
                  assertThat(e.resetAt()).isNotNull();
                });

        assertThat(responder.requests()).hasSize(1);
        assertThat(answers)
            .singleElement()
            .satisfies(
                answer -> {
                  assertThat(answer.statusCode()).isEqualTo(429);
                  assertThat(answer.header("retry-after")).isNull();
                });
        assertThat(gate.releasedWith())
            .containsExactly(Cost.requests(1).with("input_tokens", 0).with("output_tokens", 0));
      } finally {
        client.close();
      }
    }
  }

  /**
   * Anthropic's 529 {@code overloaded_error}, from the mock's overloaded fault through the real
   * client: the gate hears it as the provider overloaded for everyone (not a rate limit on the
   * caps, not a failed provider), the call is released with nothing generated and reaches the
   * caller as the SDK's overload exception without a resend, and the next call is held back before
   * it is sent.
   *
   * <p>Mutation tried: the parser reading {@code overloaded_error} by its status alone as a 5xx
   * (the signal is a provider error).
   */
  @Test
  void a529OverloadedIsHeardAsAnOverloadReleasedAndNotResent() throws Exception {
    RecordingGate gate = separateLimits(5_000);
    try (MockProvider provider =
            MockProvider.start(MockProviderConfig.builder().latencyMs(0, 0).build());
        GateContext.Scope scope = GateContext.of("acme", "P1").open()) {
      provider.setFaults(new Faults(false, 1, true));
      AnthropicClient client = client(provider.url(), gate);
      try {
        assertThatThrownBy(() -> client.messages().create(params(20)))
            .isInstanceOfSatisfying(
                OverloadedException.class, e -> assertThat(e.statusCode()).isEqualTo(529));

        assertThat(provider.records()).extracting(r -> r.status()).containsExactly(529);
        assertThat(gate.signals())
            .singleElement()
            .satisfies(
                signal -> {
                  assertThat(signal.status()).isEqualTo(529);
                  assertThat(signal.meaning()).isEqualTo(ProviderSignal.Meaning.OVERLOADED);
                  assertThat(signal.rateLimited()).isFalse();
                  assertThat(signal.providerError()).isFalse();
                  assertThat(signal.exhausted()).isEmpty();
                });
        assertThat(gate.releasedWith())
            .containsExactly(Cost.requests(1).with("input_tokens", 0).with("output_tokens", 0));
        assertThat(gate.releases()).allMatch(RecordingGate.Release::applied);
        assertThat(gate.outstanding()).isZero();

        assertThatThrownBy(() -> client.messages().create(params(20)))
            .isInstanceOf(DeferredException.class);
        assertThat(provider.records()).hasSize(1);
      } finally {
        client.close();
      }
    }
  }

  /**
   * A stream the provider cuts with {@code event: error} {@code overloaded_error} (the mock's
   * overloaded fault switched on after its first text): the gate hears it as the overload a 529 is,
   * and the call is released once, with the input reported and the text delivered.
   *
   * <p>Mutation tried: the stream tally reporting no refusal (the gate hears only the 200).
   */
  @Test
  void anOverloadedErrorEventInAStreamIsHeardAsAnOverload() throws Exception {
    RecordingGate gate = separateLimits(5_000);
    MockProviderConfig config =
        MockProviderConfig.builder()
            // eight pieces of text, one every half second: room to switch the fault on
            .latencyMs(4_000, 4_000)
            .completionTokens(new CompletionTokens.Fixed(30))
            .build();
    try (MockProvider provider = MockProvider.start(config);
        GateContext.Scope scope = GateContext.of("acme", "P1").open()) {
      AnthropicClient client = client(provider.url(), gate);
      try (StreamResponse<RawMessageStreamEvent> stream =
          client.messages().createStreaming(params(100))) {
        Iterator<RawMessageStreamEvent> events = stream.stream().iterator();
        while (!events.next().isContentBlockDelta()) {
          // up to the first text
        }
        provider.setFaults(new Faults(false, 1, true));
        assertThatThrownBy(() -> events.forEachRemaining(next -> {}))
            .isInstanceOf(AnthropicServiceException.class)
            .hasMessageContaining("Overloaded");
      } finally {
        client.close();
      }
      TestGates.assertHeardMidStream(gate, 529, ProviderSignal.Meaning.OVERLOADED);
      assertThat(gate.releases()).hasSize(1);
      assertThat(gate.outstanding()).isZero();
      assertThat(gate.releases().get(0).actual().amount("output_tokens")).isBetween(1.0, 29.0);
    }
  }

  /**
   * A stream the provider cuts with {@code event: error} {@code rate_limit_error} (the mock's
   * rate-limited-mid-stream fault after the first text): no headers could come with that error, so
   * the gate hears a slow down with no wait given (the assumed second), not the spend limit a 429
   * without {@code retry-after} before a stream means; a call two seconds later is admitted and
   * answered, where a spend limit would hold it back for ten minutes.
   *
   * <p>Mutation tried: the exchange not marking the refusal as mid-stream (the signal is a stop
   * until a reset, and the later call is deferred).
   */
  @Test
  void aRateLimitErrorEventInAStreamSlowsDownInsteadOfStopping() throws Exception {
    RecordingGate gate = separateLimits(5_000);
    try (MockProvider provider = MockProvider.start(MockAnswers.slowly(4_000, 30));
        GateContext.Scope scope = GateContext.of("acme", "P1").open()) {
      AnthropicClient client = client(provider.url(), gate);
      try {
        try (StreamResponse<RawMessageStreamEvent> stream =
            client.messages().createStreaming(params(100))) {
          Iterator<RawMessageStreamEvent> events = stream.stream().iterator();
          while (!events.next().isContentBlockDelta()) {
            // up to the first text
          }
          provider.setFaults(new Faults(false, 1, false, true));
          assertThatThrownBy(() -> events.forEachRemaining(next -> {}))
              .isInstanceOf(AnthropicServiceException.class)
              .hasMessageContaining("per-minute rate limit");
        }
        TestGates.assertHeardMidStream(gate, 429, ProviderSignal.Meaning.SLOW_DOWN);
        assertThat(gate.signals().get(1).retryAfter()).isEqualTo(RateLimits.ASSUMED_RETRY_AFTER);
        assertThat(answers).last().satisfies(answer -> assertThat(answer.midStream()).isTrue());
        assertThat(gate.releases()).hasSize(1);
        assertThat(gate.outstanding()).isZero();

        provider.setFaults(Faults.NONE);
        clock.advance(Duration.ofSeconds(2));
        assertThat(client.messages().create(params(20)).usage().outputTokens()).isEqualTo(20);
        assertThat(provider.records()).hasSize(2);
      } finally {
        client.close();
      }
    }
  }

  private static String event(String type, String json) {
    return "event: " + type + "\ndata: " + json;
  }

  private static final String START =
      event(
          "message_start",
          "{\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\",\"type\":\"message\","
              + "\"role\":\"assistant\",\"model\":\""
              + MODEL
              + "\",\"content\":[],\"stop_reason\":null,"
              + "\"stop_sequence\":null,\"usage\":{\"input_tokens\":21,\"output_tokens\":1}}}");
  private static final String BLOCK_START =
      event(
          "content_block_start",
          "{\"type\":\"content_block_start\",\"index\":0,"
              + "\"content_block\":{\"type\":\"text\",\"text\":\"\"}}");

  private static String delta(String text) {
    return event(
        "content_block_delta",
        "{\"type\":\"content_block_delta\",\"index\":0,"
            + "\"delta\":{\"type\":\"text_delta\",\"text\":\""
            + text
            + "\"}}");
  }

  @Test
  void aStreamIsReleasedWithTheUsageOfItsMessageDelta() throws Exception {
    RecordingGate gate = separateLimits(5_000);
    List<String> events =
        List.of(
            START,
            BLOCK_START,
            delta("Hello"),
            event("content_block_stop", "{\"type\":\"content_block_stop\",\"index\":0}"),
            event(
                "message_delta",
                "{\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\","
                    + "\"stop_sequence\":null},\"usage\":{\"output_tokens\":15}}"),
            event("message_stop", "{\"type\":\"message_stop\"}"));
    try (LoopbackResponder responder =
            LoopbackResponder.start(LoopbackResponder.Answer.events(events, false));
        GateContext.Scope scope = GateContext.of("acme", "P1").open()) {
      AnthropicClient client = client(responder.baseUrl(), gate);
      try (StreamResponse<RawMessageStreamEvent> stream =
          client.messages().createStreaming(params(100))) {
        assertThat(stream.stream().filter(RawMessageStreamEvent::isMessageDelta).count())
            .isEqualTo(1);
      } finally {
        client.close();
      }
      assertThat(gate.releasedWith())
          .containsExactly(Cost.requests(1).with("input_tokens", 21).with("output_tokens", 15));
    }
  }

  @Test
  void aStreamCancelledMidwayReleasesItsReportedInputAndTheDeliveredText() throws Exception {
    RecordingGate gate = separateLimits(5_000);
    List<String> events = List.of(START, BLOCK_START, delta("x".repeat(35)));
    try (LoopbackResponder responder =
            LoopbackResponder.start(LoopbackResponder.Answer.events(events, true));
        GateContext.Scope scope = GateContext.of("acme", "P1").open()) {
      AnthropicClient client = client(responder.baseUrl(), gate);
      try (StreamResponse<RawMessageStreamEvent> stream =
          client.messages().createStreaming(params(100))) {
        Iterator<RawMessageStreamEvent> it = stream.stream().iterator();
        it.next();
        it.next();
        it.next();
        assertThat(gate.releases()).isEmpty();
      } finally {
        client.close();
      }
      // input as message_start reported it; output: 35 characters at 3.5 per token
      assertThat(gate.releasedWith())
          .containsExactly(Cost.requests(1).with("input_tokens", 21).with("output_tokens", 10));
      assertThat(gate.outstanding()).isZero();
      assertThat(responder.requests()).hasSize(1);
    }
  }

  @Test
  void countTokensIsNotGated() throws Exception {
    RecordingGate gate = separateLimits(5_000);
    try (LoopbackResponder responder =
        LoopbackResponder.start(
            LoopbackResponder.Answer.json(200, Map.of(), "{\"input_tokens\":12}"))) {
      AnthropicClient client = client(responder.baseUrl(), gate);
      try {
        long tokens =
            client
                .messages()
                .countTokens(
                    com.anthropic.models.messages.MessageCountTokensParams.builder()
                        .model(MODEL)
                        .addUserMessage("hi")
                        .build())
                .inputTokens();
        assertThat(tokens).isEqualTo(12);
        assertThat(gate.requests()).isEmpty();
      } finally {
        client.close();
      }
    }
  }
}
