package io.backpressure.openai;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.openai.client.OpenAIClient;
import com.openai.core.RequestOptions;
import com.openai.models.chat.completions.ChatCompletionCreateParams;
import io.backpressure.client.DeferredException;
import io.backpressure.client.ExpiredException;
import io.backpressure.client.GateContext;
import io.backpressure.client.test.MockAnswers;
import io.backpressure.client.test.TestGates;
import io.backpressure.core.ManualClock;
import io.backpressure.core.testing.RecordingGate;
import io.backpressure.mock.MockProvider;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * openai-java's request timeout, from the client's options or the call's {@code RequestOptions}, is
 * the call's deadline at the gate: with the burst's one request spent, a call whose timeout ends
 * before its turn (a second away) ends {@link ExpiredException} at once and is not sent, and one
 * whose timeout outlasts its turn is deferred as before. The gate's clock is the client's ticker,
 * so the deadlines the gate is asked with are exact.
 */
class SdkTimeoutTest {

  private final ManualClock clock = new ManualClock();
  private final RecordingGate gate = TestGates.recording("openai/gpt-4o-mini", 1, 100_000, clock);

  private OpenAIClient client(MockProvider provider, Duration timeout) {
    return GatedOpenAI.builder()
        .gate(gate)
        .ticker(clock)
        .clientOptions(
            options -> options.baseUrl(provider.baseUrl()).apiKey("sk-test").timeout(timeout))
        .build();
  }

  private static ChatCompletionCreateParams params() {
    return ChatCompletionCreateParams.builder()
        .model("gpt-4o-mini")
        .addUserMessage("hello")
        .maxCompletionTokens(40)
        .build();
  }

  /**
   * The client's timeout, then a call's own shorter one over the client's longer one. Mutation
   * tried: the transport asked without the options' timeout (both calls are deferred).
   */
  @Test
  void aCallWhoseTimeoutEndsBeforeItsTurnEndsExpiredAtOnceWithoutBeingSent() throws Exception {
    TestGates.spendTheBurst(gate);
    try (MockProvider provider = MockProvider.start(MockAnswers.atOnce(25).build());
        GateContext.Scope scope = GateContext.of("acme", "P1").open()) {
      OpenAIClient shortTimeout = client(provider, Duration.ofMillis(300));
      OpenAIClient longTimeout = client(provider, Duration.ofSeconds(20));
      try {
        assertThatThrownBy(() -> shortTimeout.chat().completions().create(params()))
            .isInstanceOfSatisfying(
                ExpiredException.class,
                e -> assertThat(e.getMessage()).contains("after its deadline of 300 ms"));
        assertThatThrownBy(
                () ->
                    longTimeout
                        .chat()
                        .completions()
                        .create(
                            params(),
                            RequestOptions.builder().timeout(Duration.ofMillis(400)).build()))
            .isInstanceOf(ExpiredException.class);

        assertThat(gate.requests().subList(1, 3))
            .extracting(r -> r.deadline())
            .containsExactly(Duration.ofMillis(300), Duration.ofMillis(400));
        assertThat(provider.records()).isEmpty();
        assertThat(gate.outstanding()).isZero();
      } finally {
        shortTimeout.close();
        longTimeout.close();
      }
    }
  }

  @Test
  void aCallWhoseTimeoutOutlastsItsTurnIsDeferredAsBefore() throws Exception {
    TestGates.spendTheBurst(gate);
    try (MockProvider provider = MockProvider.start(MockAnswers.atOnce(25).build());
        GateContext.Scope scope = GateContext.of("acme", "P1").open()) {
      OpenAIClient client = client(provider, Duration.ofSeconds(20));
      try {
        assertThatThrownBy(() -> client.chat().completions().create(params()))
            .isInstanceOfSatisfying(
                DeferredException.class,
                e -> assertThat(e.retryAfter()).isPositive().isLessThan(Duration.ofSeconds(20)));

        assertThat(gate.requests().get(1).deadline()).isEqualTo(Duration.ofSeconds(20));
        assertThat(provider.records()).isEmpty();
      } finally {
        client.close();
      }
    }
  }
}
