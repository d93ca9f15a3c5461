package io.backpressure.langchain4j;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.langchain4j.http.client.jdk.JdkHttpClient;
import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.model.chat.StreamingChatModel;
import dev.langchain4j.model.chat.listener.ChatModelListener;
import dev.langchain4j.model.chat.listener.ChatModelRequestContext;
import dev.langchain4j.model.chat.response.ChatResponse;
import dev.langchain4j.model.chat.response.StreamingChatResponseHandler;
import dev.langchain4j.model.openai.OpenAiChatModel;
import dev.langchain4j.model.openai.OpenAiStreamingChatModel;
import io.backpressure.client.DeferredException;
import io.backpressure.client.GateContext;
import io.backpressure.client.test.SlowSend;
import io.backpressure.core.Admission;
import io.backpressure.core.Cost;
import io.backpressure.core.InMemoryGate;
import io.backpressure.core.ManualClock;
import io.backpressure.core.feedback.ProviderSignal;
import io.backpressure.core.testing.RecordingGate;
import io.backpressure.mock.CompletionTokens;
import io.backpressure.mock.MockProvider;
import io.backpressure.mock.MockProviderConfig;
import io.backpressure.mock.limit.LimitSpec;
import io.backpressure.mock.limit.WindowModel;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * LangChain4j's OpenAI models built with a {@link SendCheckingHttpClientBuilder}, wrapped, against
 * the mock provider on loopback: a call must leave within its gate's {@code sendWithin()} (a
 * twentieth of the 1 s safe window: 50 ms of virtual time). A model listener, which runs after the
 * admission and before the model builds its request, lets virtual time pass as a slow model would:
 * a call that reaches the HTTP client late gives its grant back unused and is admitted again before
 * it leaves; one in time is admitted once.
 */
class SendCheckTest {
  private static final String PROMPT = "x".repeat(400); // 100 tokens at four characters per token

  private final ManualClock clock = new ManualClock();
  private MockProvider provider;
  private InMemoryGate inMemory;
  private RecordingGate gate;

  /** Runs in a model listener: after the admission, before the model builds its request. */
  private SlowSend slowSend;

  private final ChatModelListener slow =
      new ChatModelListener() {
        @Override
        public void onRequest(ChatModelRequestContext context) {
          slowSend.run();
        }
      };

  @BeforeEach
  void start() throws Exception {
    provider =
        MockProvider.start(
            MockProviderConfig.builder()
                .latencyMs(0, 0)
                .requests(LimitSpec.perSecond(WindowModel.FIXED, 1_000))
                .completionTokens(new CompletionTokens.Fixed(30))
                .build());
    inMemory = InMemoryGate.create(SlowSend.policy("openai/gpt-4o-mini"), clock);
    gate = new RecordingGate(inMemory);
    slowSend = new SlowSend(gate, clock);
  }

  @AfterEach
  void stop() {
    provider.close();
  }

  private ChatModel model() {
    return GatedChatModel.builder(
            OpenAiChatModel.builder()
                .baseUrl(provider.baseUrl())
                .apiKey("sk-mock")
                .modelName("gpt-4o-mini")
                .maxTokens(50)
                .maxRetries(0)
                .timeout(Duration.ofSeconds(20))
                .httpClientBuilder(SendCheckingHttpClientBuilder.around(JdkHttpClient.builder()))
                .listeners(slow)
                .build(),
            gate)
        .ticker(clock)
        .build();
  }

  @Test
  void theBoundIsFiftyMillisecondsHere() {
    assertThat(gate.sendWithin()).isEqualTo(Duration.ofMillis(50));
  }

  @Test
  void aCallInTimeIsAdmittedOnce() throws Exception {
    slowSend.takes(Duration.ofMillis(50));

    String answer = GateContext.of("acme", "P1").call(() -> model().chat(PROMPT));

    assertThat(answer).isNotEmpty();
    assertThat(gate.admissions()).hasSize(1);
    assertThat(provider.records()).hasSize(1);
    assertThat(gate.releasedWith()).singleElement().isNotEqualTo(Cost.requests(0).tokens(0));
    assertThat(gate.outstanding()).isZero();
  }

  /** Mutation tried: the decorator's model built without the send check (the call goes as is). */
  @Test
  void aSlowCallGivesItsGrantBackUnusedAndIsAdmittedAgainBeforeItLeaves() throws Exception {
    slowSend.takes(Duration.ofMillis(51));

    String answer = GateContext.of("acme", "P1").call(() -> model().chat(PROMPT));

    assertThat(answer).isNotEmpty();
    assertThat(gate.admissions())
        .hasSize(2)
        .allSatisfy(a -> assertThat(a).isInstanceOf(Admission.Admitted.class));
    Admission.Admitted second = (Admission.Admitted) gate.admissions().get(1);
    assertThat(gate.releases().get(0).actual()).isEqualTo(Cost.requests(0).tokens(0));
    assertThat(gate.releases().get(1).grant()).isEqualTo(second.grant());
    assertThat(gate.releases().get(1).actual().amount("requests")).isEqualTo(1);
    assertThat(provider.records()).hasSize(1);
    assertThat(gate.outstanding()).isZero();
  }

  @Test
  void aSlowCallThatIsNotAdmittedAgainFailsWithTheGatesAnswerAndIsNotSent() {
    slowSend.takes(Duration.ofMillis(100));
    slowSend.providerPausesMeanwhile();

    assertThatThrownBy(() -> GateContext.of("acme", "P1").call(() -> model().chat(PROMPT)))
        .isInstanceOf(DeferredException.class);

    assertThat(gate.admissions()).hasSize(2);
    assertThat(gate.admissions().get(1)).isInstanceOf(Admission.Deferred.class);
    assertThat(gate.releasedWith()).containsExactly(Cost.requests(0).tokens(0));
    assertThat(provider.records()).isEmpty();
    assertThat(gate.outstanding()).isZero();
  }

  private StreamingChatModel streamingModel() {
    return GatedStreamingChatModel.builder(
            OpenAiStreamingChatModel.builder()
                .baseUrl(provider.baseUrl())
                .apiKey("sk-mock")
                .modelName("gpt-4o-mini")
                .maxTokens(50)
                .timeout(Duration.ofSeconds(20))
                .httpClientBuilder(SendCheckingHttpClientBuilder.around(JdkHttpClient.builder()))
                .listeners(slow)
                .build(),
            gate)
        .ticker(clock)
        .build();
  }

  /**
   * Streams {@code PROMPT} through {@code model} as P1 of acme; the final response, or its error.
   */
  private static ChatResponse stream(StreamingChatModel model) throws Exception {
    CompletableFuture<ChatResponse> end = new CompletableFuture<>();
    GateContext.of("acme", "P1")
        .run(
            () ->
                model.chat(
                    PROMPT,
                    new StreamingChatResponseHandler() {
                      @Override
                      public void onPartialResponse(String part) {}

                      @Override
                      public void onCompleteResponse(ChatResponse response) {
                        end.complete(response);
                      }

                      @Override
                      public void onError(Throwable error) {
                        end.completeExceptionally(error);
                      }
                    }));
    return end.get(20, TimeUnit.SECONDS);
  }

  @Test
  void aSlowStreamIsAdmittedAgainAndReleasesTheSecondGrantWithItsUsage() throws Exception {
    slowSend.takes(Duration.ofMillis(51));

    assertThat(stream(streamingModel()).aiMessage().text()).isNotEmpty();

    assertThat(gate.admissions())
        .hasSize(2)
        .allSatisfy(a -> assertThat(a).isInstanceOf(Admission.Admitted.class));
    Admission.Admitted second = (Admission.Admitted) gate.admissions().get(1);
    assertThat(gate.releases()).hasSize(2);
    assertThat(gate.releases().get(0).actual()).isEqualTo(Cost.requests(0).tokens(0));
    assertThat(gate.releases().get(1).grant()).isEqualTo(second.grant());
    assertThat(gate.releases().get(1).actual().amount("requests")).isEqualTo(1);
    assertThat(provider.records()).hasSize(1);
    assertThat(gate.outstanding()).isZero();
  }

  /**
   * A stream's answer carries the provider's rate-limit headers before its first chunk: the gate
   * hears them, with the stream's grant, as it hears a whole answer's. Mutation tried: the stream's
   * listener passed to the HTTP client as it is (the gate hears nothing).
   */
  @Test
  void aStreamsRateLimitHeadersReachTheGate() throws Exception {
    assertThat(inMemory.feedbackState().signals()).isZero();
    assertThat(inMemory.feedbackState().dimensions().get("requests").limit()).isNaN();

    stream(streamingModel());

    assertThat(gate.signals())
        .singleElement()
        .satisfies(
            signal -> {
              assertThat(signal.status()).isEqualTo(200);
              assertThat(signal.meaning()).isEqualTo(ProviderSignal.Meaning.ANSWERED);
              // The mock limits requests alone; its header says 1 000, this call the first.
              assertThat(signal.limits()).containsOnlyKeys("requests");
              assertThat(signal.limits().get("requests").limit()).isEqualTo(1_000.0);
              assertThat(signal.limits().get("requests").remaining()).isEqualTo(999.0);
            });
    assertThat(inMemory.feedbackState().signals()).isEqualTo(1);
    assertThat(inMemory.feedbackState().dimensions().get("requests").limit())
        .as("OpenAI's limit headers count a minute: 1 000 a minute, per second")
        .isEqualTo(1_000.0 / 60);
    assertThat(gate.outstanding()).isZero();
  }
}
