package io.backpressure.springai;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.backpressure.client.DeferredException;
import io.backpressure.client.ExpiredException;
import io.backpressure.client.test.MockAnswers;
import io.backpressure.client.test.TestGates;
import io.backpressure.core.ManualClock;
import io.backpressure.core.testing.RecordingGate;
import io.backpressure.mock.MockProvider;
import io.backpressure.springai.test.MockOpenAi;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.openai.OpenAiChatOptions;

/**
 * The timeout of Spring AI's OpenAI options, the model's default or a call's own, is the call's
 * deadline at the advisor: with the burst's one request spent, a call whose timeout ends before its
 * turn (a virtual second away) ends {@link ExpiredException} at once and is not sent, and one whose
 * timeout outlasts its turn is deferred as before.
 */
class OptionsTimeoutTest {
  private final ManualClock clock = new ManualClock();
  private final RecordingGate gate = TestGates.recording("openai/gpt-4o-mini", 1, 100_000, clock);
  private MockProvider provider;

  @BeforeEach
  void start() throws Exception {
    provider = MockProvider.start(MockAnswers.atOnce(30).build());
  }

  @AfterEach
  void stop() {
    provider.close();
  }

  /** A prompt for acme in P1 to the OpenAI model whose calls give up after {@code timeout}. */
  private ChatClient.ChatClientRequestSpec prompt(Duration timeout) {
    return ChatClient.builder(MockOpenAi.chatModel(provider, timeout))
        .defaultAdvisors(BackpressureAdvisor.builder(gate).build())
        .build()
        .prompt("hello")
        .advisors(
            a ->
                a.param(BackpressureAdvisor.TENANT, "acme")
                    .param(BackpressureAdvisor.PRIORITY, "P1"));
  }

  /**
   * The model's timeout, then a call's own shorter one over the model's longer one. Mutation tried:
   * the advisor asking with the context's deadline alone (both calls are deferred).
   */
  @Test
  void aCallWhoseTimeoutEndsBeforeItsTurnEndsExpiredAtOnceWithoutBeingSent() {
    TestGates.spendTheBurst(gate);

    assertThatThrownBy(() -> prompt(Duration.ofMillis(300)).call().content())
        .isInstanceOfSatisfying(
            ExpiredException.class,
            e -> assertThat(e.getMessage()).contains("after its deadline of"));
    assertThatThrownBy(
            () ->
                prompt(Duration.ofSeconds(20))
                    .options(OpenAiChatOptions.builder().timeout(Duration.ofMillis(400)))
                    .call()
                    .content())
        .isInstanceOf(ExpiredException.class);

    assertThat(gate.requests().get(1).deadline())
        .isPositive()
        .isLessThanOrEqualTo(Duration.ofMillis(300));
    assertThat(gate.requests().get(2).deadline())
        .isGreaterThan(Duration.ofMillis(300))
        .isLessThanOrEqualTo(Duration.ofMillis(400));
    assertThat(provider.records()).isEmpty();
    assertThat(gate.outstanding()).isZero();
  }

  @Test
  void aCallWhoseTimeoutOutlastsItsTurnIsDeferredAsBefore() {
    TestGates.spendTheBurst(gate);

    assertThatThrownBy(() -> prompt(Duration.ofSeconds(20)).call().content())
        .isInstanceOfSatisfying(
            DeferredException.class,
            e -> assertThat(e.retryAfter()).isPositive().isLessThan(Duration.ofSeconds(20)));

    assertThat(gate.requests().get(1).deadline())
        .isGreaterThan(Duration.ofSeconds(19))
        .isLessThanOrEqualTo(Duration.ofSeconds(20));
    assertThat(provider.records()).isEmpty();
  }
}
