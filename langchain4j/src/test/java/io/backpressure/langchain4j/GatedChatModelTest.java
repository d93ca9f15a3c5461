package io.backpressure.langchain4j;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.model.chat.ChatRequestOptions;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.model.chat.response.ChatResponse;
import dev.langchain4j.model.openai.OpenAiChatModel;
import dev.langchain4j.service.AiServices;
import io.backpressure.client.DeferredException;
import io.backpressure.client.GateContext;
import io.backpressure.client.RejectedException;
import io.backpressure.client.test.TestGates;
import io.backpressure.core.Cost;
import io.backpressure.core.InMemoryGate;
import io.backpressure.core.ManualClock;
import io.backpressure.core.Policy;
import io.backpressure.core.RejectReason;
import io.backpressure.core.testing.RecordingGate;
import io.backpressure.mock.CompletionTokens;
import io.backpressure.mock.MockProvider;
import io.backpressure.mock.MockProviderConfig;
import io.backpressure.mock.RequestRecord;
import io.backpressure.mock.limit.LimitSpec;
import io.backpressure.mock.limit.WindowModel;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * LangChain4j's own OpenAI model, wrapped, against the mock provider on loopback; gate time is
 * virtual.
 */
class GatedChatModelTest {
  private static final String PROMPT = "x".repeat(400); // 100 tokens at four characters per token

  private final ManualClock clock = new ManualClock();
  private MockProvider provider;
  private RecordingGate gate;

  @BeforeEach
  void start() throws Exception {
    provider =
        MockProvider.start(
            MockProviderConfig.builder()
                .latencyMs(0, 0)
                .requests(LimitSpec.perSecond(WindowModel.FIXED, 1_000))
                .completionTokens(new CompletionTokens.Fixed(30))
                .build());
    Policy policy =
        Policy.builder("openai/gpt-4o-mini")
            .dimension("requests", 1, 1) // one call per virtual second, no burst beyond it
            .tokensPerSecond(10_000)
            .priority("P1", 0.7)
            .priority("P2", 0.3)
            .build();
    gate = new RecordingGate(InMemoryGate.create(policy, clock));
  }

  @AfterEach
  void stop() {
    provider.close();
  }

  private ChatModel openAi() {
    return OpenAiChatModel.builder()
        .baseUrl(provider.baseUrl())
        .apiKey("sk-mock")
        .modelName("gpt-4o-mini")
        .maxTokens(50)
        .maxRetries(0)
        .timeout(Duration.ofSeconds(20))
        .build();
  }

  @Test
  void releasesTheGrantWithTheReplysTrueUsage() throws Exception {
    ChatModel model = GatedChatModel.builder(openAi(), gate).build();

    String answer = GateContext.of("acme", "P1").call(() -> model.chat(PROMPT));

    assertThat(answer).isNotEmpty();
    RequestRecord record = TestGates.assertReleasedAsCounted(gate, provider);
    TestGates.assertAskedOnce(gate, "acme", "P1", Cost.requests(1).tokens(100), 50L);
    assertThat(record.completionTokens()).isEqualTo(30);
  }

  @Test
  void aDeferralThrowsCarryingDeltaAndTheRetryRedeemsItsBooking() throws Exception {
    ChatModel model = GatedChatModel.builder(openAi(), gate).build();
    GateContext context = GateContext.of("acme", "P2");
    context.call(() -> model.chat(PROMPT));

    DeferredException deferred = null;
    try {
      context.call(() -> model.chat(PROMPT));
    } catch (DeferredException e) {
      deferred = e;
    }

    assertThat(deferred).isNotNull();
    assertThat(deferred.retryAfter()).isPositive().isLessThanOrEqualTo(Duration.ofSeconds(1));
    assertThat(deferred.booking()).isNotEmpty();
    assertThat(provider.records()).hasSize(1);

    clock.advance(deferred.retryAfter());
    String booking = deferred.booking();
    String answer = context.withBooking(booking).call(() -> model.chat(PROMPT));
    assertThat(answer).isNotEmpty();
    assertThat(gate.requests().get(2).booking()).isEqualTo(booking);
    assertThat(provider.records())
        .hasSize(2)
        .allSatisfy(r -> assertThat(r.status()).isEqualTo(200));
  }

  @Test
  void readsTheContextFromTheRequestOptionsBeforeTheThreadAndTheDefault() {
    ChatModel model =
        GatedChatModel.builder(openAi(), gate)
            .defaultContext(GateContext.of("fallback", "P2"))
            .build();
    ChatRequest request = ChatRequest.builder().messages(UserMessage.from(PROMPT)).build();

    ChatResponse response =
        model.chat(
            request,
            ChatRequestOptions.builder()
                .addListenerAttribute(GateContext.KEY, GateContext.of("globex", "P1"))
                .build());
    clock.advance(Duration.ofSeconds(1));
    model.chat(request);

    assertThat(response.tokenUsage().totalTokenCount()).isEqualTo(130);
    assertThat(gate.requests())
        .extracting(r -> r.tenant() + "/" + r.priority())
        .containsExactly("globex/P1", "fallback/P2");
  }

  /** An AI service, as most LangChain4j applications call their model. */
  interface Assistant {
    String chat(String message);
  }

  @Test
  void anAiServiceOverTheGatedModelIsAdmittedInTheScopedContext() throws Exception {
    Assistant assistant =
        AiServices.create(Assistant.class, GatedChatModel.builder(openAi(), gate).build());

    String answer = GateContext.of("acme", "P2").call(() -> assistant.chat(PROMPT));

    assertThat(answer).isNotEmpty();
    assertThat(gate.requests())
        .singleElement()
        .satisfies(
            r -> {
              assertThat(r.tenant() + "/" + r.priority()).isEqualTo("acme/P2");
              assertThat(r.cost()).isEqualTo(Cost.requests(1).tokens(100));
            });
    TestGates.assertReleasedAsCounted(gate, provider);
  }

  @Test
  void aCallWithNoContextIsRejectedBeforeAnyTraffic() {
    ChatModel model = GatedChatModel.builder(openAi(), gate).build();

    assertThatThrownBy(() -> model.chat(PROMPT))
        .isInstanceOfSatisfying(
            RejectedException.class,
            e -> assertThat(e.reason()).isEqualTo(RejectReason.INVALID_REQUEST))
        .hasMessageContaining(GateContext.KEY);
    assertThat(provider.records()).isEmpty();
  }

  @Test
  void anUnknownClassIsRejectedNamingIt() {
    ChatModel model = GatedChatModel.builder(openAi(), gate).build();

    assertThatThrownBy(() -> GateContext.of("acme", "P9").call(() -> model.chat(PROMPT)))
        .isInstanceOfSatisfying(
            RejectedException.class,
            e -> assertThat(e.reason()).isEqualTo(RejectReason.UNKNOWN_PRIORITY))
        .hasMessageContaining("P9");
    assertThat(provider.records()).isEmpty();
  }
}
