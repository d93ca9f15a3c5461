package io.backpressure.client.test;

import static org.assertj.core.api.Assertions.assertThat;

import io.backpressure.client.GateContext;
import io.backpressure.core.InMemoryGate;
import io.backpressure.core.Policy;
import io.backpressure.core.feedback.FeedbackPolicy;
import io.backpressure.mock.MockProvider;
import io.backpressure.mock.MockProviderConfig;
import io.backpressure.mock.limit.LimitSpec;
import io.backpressure.mock.limit.WindowModel;
import java.time.Duration;

/**
 * The framework modules' run at the cap: {@link #TENANTS} tenants call the mock provider as fast as
 * the gate lets them, in real time, {@link #CALLS} calls each, through the framework's model with
 * its retries off; the provider, which caps requests in fixed one-second windows, must never answer
 * 429. Each module brings its framework's model; the provider, the gate, the run and what it must
 * show are the same for all.
 */
public final class AtTheCap {

  /** The provider's cap and the gate's, in requests per second. */
  public static final int CAP_PER_SECOND = 10;

  /** The tenants calling. */
  public static final int TENANTS = 4;

  /** The calls each tenant makes. */
  public static final int CALLS = 8;

  /**
   * A margin for the variation of the delay from an admission to the provider's count of it: the
   * one-second safe window is widened by it and the cap scaled to keep the window's allowance
   * ({@link Policy#withSendMargin}). With a window of exactly the period a loaded machine's delays
   * let an 11th call into one provider second (seen in CI: "Please try again in 3ms").
   */
  private static final Duration SEND_MARGIN = Duration.ofMillis(100);

  private AtTheCap() {}

  /** The provider: {@link #CAP_PER_SECOND} requests per fixed one-second window, 5–20 ms. */
  public static MockProviderConfig provider() {
    return MockProviderConfig.builder()
        .latencyMs(5, 20)
        .requests(LimitSpec.perSecond(WindowModel.FIXED, CAP_PER_SECOND))
        .build();
  }

  /**
   * The gate of {@code openai/gpt-4o-mini}: the provider's cap under a one-second safe window
   * widened by the send margin, one priority {@code P1}. Its provider feedback counts the
   * provider's {@code limit} and {@code remaining} headers per second, as the mock counts them (by
   * default a gate reads them per minute, as OpenAI counts).
   */
  public static InMemoryGate gate() {
    return InMemoryGate.create(
        Policy.builder("openai/gpt-4o-mini")
            .requestsPerSecond(CAP_PER_SECOND)
            .tokensPerSecond(100_000)
            .priority("P1", 1)
            .safeWindow(Duration.ofSeconds(1))
            .sendMargin(SEND_MARGIN)
            .feedback(FeedbackPolicy.builder().period(Duration.ofSeconds(1)).build())
            .build());
  }

  /**
   * Makes one warm-up call as tenant {@code warm-up}, lets its provider window pass, then runs the
   * tenants ({@link TenantLoad}), each call made inside its caller's {@link GateContext} scope. The
   * first call through a new client loads classes and opens its connection: it reaches the provider
   * up to a second after its admission, into a provider window the gate had already left; later
   * calls arrive within milliseconds.
   *
   * @throws Exception what a call threw that is not a deferral (a 429 included), or a timeout
   */
  public static TenantLoad.Outcome run(TenantLoad.Call call) throws Exception {
    try (GateContext.Scope scope = GateContext.of("warm-up", "P1").open()) {
      call.run(-1);
    }
    Thread.sleep(1_100);
    return TenantLoad.run(TENANTS, CALLS, e -> false, Duration.ofMinutes(2), call);
  }

  /**
   * Asserts what the run must show: every call answered, every request the provider saw (the
   * warm-up's included) a 200, and at least one deferral, so that the run was at the cap.
   */
  public static void assertNo429(TenantLoad.Outcome outcome, MockProvider provider) {
    assertThat(outcome.answered()).isEqualTo(TENANTS * CALLS);
    assertThat(provider.records())
        .hasSize(1 + TENANTS * CALLS)
        .allSatisfy(r -> assertThat(r.status()).isEqualTo(200));
    assertThat(outcome.deferrals())
        .as("the gate held calls back, so the run was at the cap")
        .isPositive();
  }
}
