package io.backpressure.springai;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.backpressure.client.DeferredException;
import io.backpressure.client.GateContext;
import io.backpressure.client.RejectedException;
import io.backpressure.client.test.MockAnswers;
import io.backpressure.client.test.TestGates;
import io.backpressure.core.Cost;
import io.backpressure.core.InMemoryGate;
import io.backpressure.core.ManualClock;
import io.backpressure.core.Policy;
import io.backpressure.core.RejectReason;
import io.backpressure.core.testing.RecordingGate;
import io.backpressure.mock.Faults;
import io.backpressure.mock.MockProvider;
import io.backpressure.mock.RequestRecord;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.openai.OpenAiChatModel;
import org.springframework.ai.openai.OpenAiChatOptions;

/**
 * Spring AI's own OpenAI model behind a ChatClient, against the mock provider; gate time is
 * virtual.
 */
class BackpressureAdvisorTest {
  private static final String PROMPT = "x".repeat(400); // 100 tokens at four characters per token

  private final ManualClock clock = new ManualClock();
  private final List<String> feedbackTargets = new CopyOnWriteArrayList<>();
  private MockProvider provider;
  private RecordingGate gate;
  private ChatClient chat;

  @BeforeEach
  void start() throws Exception {
    provider = MockProvider.start(MockAnswers.atOnce(30).build());
    gate =
        new RecordingGate(
            InMemoryGate.create(
                Policy.builder("openai/gpt-4o-mini")
                    .dimension("requests", 1, 1) // one call per virtual second
                    .tokensPerSecond(10_000)
                    .priority("P1", 0.7)
                    .priority("P2", 0.3)
                    .build(),
                clock));
    OpenAiChatModel openAi =
        OpenAiChatModel.builder()
            .options(
                OpenAiChatOptions.builder()
                    .baseUrl(provider.baseUrl())
                    .apiKey("sk-mock")
                    .model("gpt-4o-mini")
                    .maxTokens(50)
                    .maxRetries(0)
                    .timeout(Duration.ofSeconds(20))
                    .build())
            .build();
    chat =
        ChatClient.builder(openAi)
            .defaultAdvisors(
                BackpressureAdvisor.builder(gate)
                    .feedback((target, rateLimit) -> feedbackTargets.add(target))
                    .build())
            .build();
  }

  @AfterEach
  void stop() {
    provider.close();
  }

  private String ask(String tenant, String priority) {
    return chat.prompt(PROMPT)
        .advisors(
            a ->
                a.param(BackpressureAdvisor.TENANT, tenant)
                    .param(BackpressureAdvisor.PRIORITY, priority))
        .call()
        .content();
  }

  @Test
  void releasesTheGrantWithTheAnswersTrueUsage() {
    String answer = ask("acme", "P1");

    assertThat(answer).isNotEmpty();
    RequestRecord record = TestGates.assertReleasedAsCounted(gate, provider);
    TestGates.assertAskedOnce(gate, "acme", "P1", Cost.requests(1).tokens(100), 50L);
    assertThat(record.completionTokens()).isEqualTo(30);
    assertThat(feedbackTargets).containsExactly("openai/gpt-4o-mini");
  }

  @Test
  void aDeferralThrowsCarryingDeltaBeforeAnyTraffic() {
    ask("acme", "P2");

    assertThatThrownBy(() -> ask("acme", "P2"))
        .isInstanceOfSatisfying(
            DeferredException.class,
            e -> {
              assertThat(e.retryAfter()).isPositive().isLessThanOrEqualTo(Duration.ofSeconds(1));
              assertThat(e.booking()).isNotEmpty();
            });
    assertThat(provider.records()).hasSize(1);
  }

  @Test
  void takesAGateContextParameterOrTheThreadsContext() throws Exception {
    chat.prompt(PROMPT)
        .advisors(a -> a.param(GateContext.KEY, GateContext.of("globex", "P2")))
        .call()
        .content();
    clock.advance(Duration.ofSeconds(1));
    GateContext.of("initech", "P1").call(() -> chat.prompt(PROMPT).call().content());

    assertThat(gate.requests())
        .extracting(r -> r.tenant() + "/" + r.priority())
        .containsExactly("globex/P2", "initech/P1");
  }

  @Test
  void aCallWithNoContextIsRejectedBeforeAnyTraffic() {
    assertThatThrownBy(() -> chat.prompt(PROMPT).call().content())
        .isInstanceOfSatisfying(
            RejectedException.class,
            e -> assertThat(e.reason()).isEqualTo(RejectReason.INVALID_REQUEST));
    assertThat(provider.records()).isEmpty();
  }

  @Test
  void aStreamIsAdmittedAndReleasedWithoutTokensWhenTheProviderRefusesIt() {
    // The mock provider, switched to answering 500s, refuses the stream before its first event.
    provider.setFaults(new Faults(true, 1.0));
    Throwable failure = null;
    try {
      chat
          .prompt(PROMPT)
          .advisors(
              a ->
                  a.param(BackpressureAdvisor.TENANT, "acme")
                      .param(BackpressureAdvisor.PRIORITY, "P1"))
          .stream()
          .content()
          .collectList()
          .block(Duration.ofSeconds(20));
    } catch (RuntimeException e) {
      failure = e;
    }

    assertThat(failure).isNotNull();
    assertThat(provider.records())
        .isNotEmpty()
        .allSatisfy(r -> assertThat(r.status()).isEqualTo(500));
    // The stream's failure reaches the caller before the advisor's release on the stream's thread.
    long until = System.nanoTime() + 5_000_000_000L;
    while (gate.releasedWith().isEmpty() && System.nanoTime() < until) {
      java.util.concurrent.locks.LockSupport.parkNanos(10_000_000L);
    }
    assertThat(gate.releasedWith()).containsExactly(Cost.requests(1).tokens(0));
  }

  @Test
  void aDeferredStreamFailsCarryingDelta() {
    ask("acme", "P1");

    assertThatThrownBy(
            () ->
                chat
                    .prompt(PROMPT)
                    .advisors(
                        a ->
                            a.param(BackpressureAdvisor.TENANT, "acme")
                                .param(BackpressureAdvisor.PRIORITY, "P1"))
                    .stream()
                    .content()
                    .blockLast(Duration.ofSeconds(20)))
        .isInstanceOf(DeferredException.class);
    assertThat(provider.records()).hasSize(1);
  }
}
