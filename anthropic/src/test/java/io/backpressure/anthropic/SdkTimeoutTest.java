package io.backpressure.anthropic;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.anthropic.client.AnthropicClient;
import com.anthropic.core.RequestOptions;
import com.anthropic.models.messages.MessageCreateParams;
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
 * anthropic-java's request timeout, from the client's options or the call's {@code RequestOptions},
 * is the call's deadline at the gate: with the burst's one request spent, a call whose timeout ends
 * before its turn (a second away) ends {@link ExpiredException} at once and is not sent, and one
 * whose timeout outlasts its turn is deferred as before. The gate's clock is the client's ticker,
 * so the deadlines the gate is asked with are exact.
 */
class SdkTimeoutTest {

  private final ManualClock clock = new ManualClock();
  private final RecordingGate gate =
      TestGates.recording("anthropic/claude-haiku", 1, 100_000, clock);

  private AnthropicClient client(MockProvider provider, Duration timeout) {
    return GatedAnthropic.builder()
        .gate(gate)
        .ticker(clock)
        .clientOptions(
            options -> options.baseUrl(provider.url()).apiKey("sk-ant-test").timeout(timeout))
        .build();
  }

  private static MessageCreateParams params() {
    return MessageCreateParams.builder()
        .model("claude-haiku-4-5")
        .maxTokens(40)
        .addUserMessage("hello")
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
      AnthropicClient shortTimeout = client(provider, Duration.ofMillis(300));
      AnthropicClient longTimeout = client(provider, Duration.ofSeconds(20));
      try {
        assertThatThrownBy(() -> shortTimeout.messages().create(params()))
            .isInstanceOfSatisfying(
                ExpiredException.class,
                e -> assertThat(e.getMessage()).contains("after its deadline of 300 ms"));
        assertThatThrownBy(
                () ->
                    longTimeout
                        .messages()
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
      AnthropicClient client = client(provider, Duration.ofSeconds(20));
      try {
        assertThatThrownBy(() -> client.messages().create(params()))
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
