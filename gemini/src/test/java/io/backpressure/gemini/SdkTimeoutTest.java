package io.backpressure.gemini;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.genai.Client;
import com.google.genai.types.GenerateContentConfig;
import com.google.genai.types.HttpOptions;
import io.backpressure.client.DeferredException;
import io.backpressure.client.ExpiredException;
import io.backpressure.client.GateContext;
import io.backpressure.client.test.MockAnswers;
import io.backpressure.client.test.TestGates;
import io.backpressure.core.InMemoryGate;
import io.backpressure.core.ManualClock;
import io.backpressure.core.Policy;
import io.backpressure.core.testing.RecordingGate;
import io.backpressure.mock.MockProvider;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * google-genai's {@code HttpOptions.timeout}, the client's or a call's own, is the call's deadline
 * at the gate. With the burst's one request spent at one request per five seconds, a call whose
 * timeout ends before its turn ends {@link ExpiredException} at once and is not sent, and one whose
 * timeout outlasts its turn is deferred as before. The gate's clock is the client's ticker, so the
 * deadlines the gate is asked with are exact.
 */
class SdkTimeoutTest {

  private static final String MODEL = "gemini-2.5-flash";

  private final ManualClock clock = new ManualClock();
  private final RecordingGate gate =
      new RecordingGate(
          InMemoryGate.create(
              Policy.builder("gemini/my-project")
                  .dimension("requests", 0.2, 1)
                  .tokensPerSecond(100_000)
                  .priority("P1", 1)
                  .build(),
              clock));

  private Client client(MockProvider provider, int timeoutMillis) {
    return GatedGemini.builder()
        .gate(gate)
        .ticker(clock)
        .client(builder -> builder.apiKey("test-key"))
        .httpOptions(options -> options.baseUrl(provider.url()).timeout(timeoutMillis))
        .build();
  }

  private static GenerateContentConfig config() {
    return GenerateContentConfig.builder().maxOutputTokens(40).build();
  }

  /**
   * The client's timeout, then a call's own shorter one under the client's longer one. Mutation
   * tried: the interceptor asking without the timeouts (both calls are deferred).
   */
  @Test
  void aCallWhoseTimeoutEndsBeforeItsTurnEndsExpiredAtOnceWithoutBeingSent() throws Exception {
    TestGates.spendTheBurst(gate);
    try (MockProvider provider = MockProvider.start(MockAnswers.atOnce(25).build());
        GateContext.Scope scope = GateContext.of("acme", "P1").open()) {
      Client shortTimeout = client(provider, 300);
      Client longTimeout = client(provider, 20_000);

      assertThatThrownBy(() -> shortTimeout.models.generateContent(MODEL, "hello", config()))
          .isInstanceOfSatisfying(
              ExpiredException.class,
              e -> assertThat(e.getMessage()).contains("after its deadline of 300 ms"));
      GenerateContentConfig ownTimeout =
          config().toBuilder().httpOptions(HttpOptions.builder().timeout(2_500).build()).build();
      assertThatThrownBy(() -> longTimeout.models.generateContent(MODEL, "hello", ownTimeout))
          .isInstanceOf(ExpiredException.class);

      assertThat(gate.requests().subList(1, 3))
          .extracting(r -> r.deadline())
          .containsExactly(Duration.ofMillis(300), Duration.ofMillis(2_500));
      assertThat(provider.records()).isEmpty();
      assertThat(gate.outstanding()).isZero();
    }
  }

  @Test
  void aCallWhoseTimeoutOutlastsItsTurnIsDeferredAsBefore() throws Exception {
    TestGates.spendTheBurst(gate);
    try (MockProvider provider = MockProvider.start(MockAnswers.atOnce(25).build());
        GateContext.Scope scope = GateContext.of("acme", "P1").open()) {
      Client client = client(provider, 20_000);

      assertThatThrownBy(() -> client.models.generateContent(MODEL, "hello", config()))
          .isInstanceOfSatisfying(
              DeferredException.class,
              e -> assertThat(e.retryAfter()).isPositive().isLessThan(Duration.ofSeconds(20)));

      assertThat(gate.requests().get(1).deadline()).isEqualTo(Duration.ofSeconds(20));
      assertThat(provider.records()).isEmpty();
    }
  }
}
