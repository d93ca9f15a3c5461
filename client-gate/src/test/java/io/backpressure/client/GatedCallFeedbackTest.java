package io.backpressure.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.backpressure.core.Admission;
import io.backpressure.core.Cost;
import io.backpressure.core.InMemoryGate;
import io.backpressure.core.ManualClock;
import io.backpressure.core.Policy;
import io.backpressure.core.feedback.FeedbackPolicy;
import io.backpressure.core.testing.RecordingGate;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The provider's answers that an HTTP-layer hook hands to {@link GatedCall#answered} reach the
 * call's gate: the rate-limit headers move its effective caps, a 429's own retry-after holds it
 * (not the one-second guess a thrown 429 gets), and with {@code providerFeedback(false)} the gate
 * hears nothing of them.
 */
class GatedCallFeedbackTest {
  private final ManualClock clock = new ManualClock();
  private final InMemoryGate inMemory =
      InMemoryGate.create(
          Policy.builder("openai/gpt-4o")
              .requestsPerSecond(60)
              .tokensPerSecond(10_000)
              .priority("P1", 1)
              .feedback(FeedbackPolicy.builder().period(Duration.ofSeconds(1)).build())
              .build(),
          clock);
  private final RecordingGate gate = new RecordingGate(inMemory);
  private final GateContext acme = GateContext.of("acme", "P1");
  private final Cost estimate = Cost.requests(1).tokens(100);

  private static final Map<String, List<String>> LIMIT_30 =
      Map.of(
          "x-ratelimit-limit-requests",
          List.of("30"),
          "x-ratelimit-remaining-requests",
          List.of("29"));

  @Test
  void anAnswersRateLimitHeadersMoveTheEffectiveCap() {
    String reply =
        GatedCall.of(gate)
            .call(
                acme,
                estimate,
                null,
                () -> {
                  GatedCall.answered(200, LIMIT_30, null);
                  return "reply";
                },
                r -> Cost.requests(1).tokens(120));

    assertThat(reply).isEqualTo("reply");
    assertThat(inMemory.feedbackState().signals()).isEqualTo(1);
    assertThat(inMemory.feedbackState().dimensions().get("requests").limit()).isEqualTo(30.0);
    assertThat(inMemory.feedbackState().dimensions().get("requests").effective())
        .isLessThanOrEqualTo(30.0);
  }

  /**
   * The client's own exception for the 429 is not one {@link RateLimits} recognises: the call asks
   * again because the gate heard the 429.
   */
  @Test
  void a429HeardWithItsRetryAfterIsToldOnceAndTheCallIsDeferredByIt() {
    GatedCall gated = GatedCall.of(gate);

    assertThatThrownBy(
            () ->
                gated.call(
                    acme,
                    estimate,
                    null,
                    () -> {
                      GatedCall.answered(429, Map.of("retry-after-ms", List.of("300")), null);
                      throw new IllegalStateException("the client's error for the 429");
                    },
                    r -> Cost.requests(1)))
        .isInstanceOfSatisfying(
            DeferredException.class,
            e ->
                assertThat(e.retryAfter())
                    .isPositive()
                    .isLessThanOrEqualTo(Duration.ofMillis(300)));

    assertThat(inMemory.feedbackState().signals()).isEqualTo(1);
    assertThat(gate.admissions()).hasSize(2);
    assertThat(gate.admissions().get(1)).isInstanceOf(Admission.Deferred.class);
    assertThat(gate.outstanding()).isZero();
  }

  @Test
  void withProviderFeedbackOffTheGateHearsNothingAndAnUnrecognisedErrorReachesTheCaller() {
    GatedCall gated = GatedCall.builder(gate).providerFeedback(false).build();

    gated.call(
        acme,
        estimate,
        null,
        () -> {
          GatedCall.answered(200, LIMIT_30, null);
          return "reply";
        },
        r -> Cost.requests(1));
    assertThatThrownBy(
            () ->
                gated.call(
                    acme,
                    estimate,
                    null,
                    () -> {
                      GatedCall.answered(429, Map.of("retry-after-ms", List.of("300")), null);
                      throw new IllegalStateException("the client's error for the 429");
                    },
                    r -> Cost.requests(1)))
        .isInstanceOf(IllegalStateException.class);

    assertThat(inMemory.feedbackState().signals()).isZero();
    assertThat(inMemory.feedbackState().dimensions().get("requests").effective()).isEqualTo(60.0);
    assertThat(gate.admissions()).hasSize(2);
  }

  @Test
  void anAnswerHeardOnAThreadThatRunsNoGatedCallIsIgnored() {
    GatedCall.answered(200, LIMIT_30, null);

    assertThat(inMemory.feedbackState().signals()).isZero();
  }
}
