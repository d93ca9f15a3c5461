package io.backpressure.client;

import static org.assertj.core.api.Assertions.assertThat;

import io.backpressure.core.Admission;
import io.backpressure.core.AdmissionRequest;
import io.backpressure.core.Cost;
import io.backpressure.core.Grant;
import io.backpressure.core.InMemoryGate;
import io.backpressure.core.ManualClock;
import io.backpressure.core.Policy;
import io.backpressure.core.feedback.FeedbackPolicy;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ProviderFeedbackTest {

  @Test
  void toGate_handsTheAnswersHeadersToTheGatesFeedback() {
    InMemoryGate gate =
        InMemoryGate.create(
            Policy.builder("openai/gpt-4o")
                .requestsPerSecond(60)
                .tokensPerSecond(10_000)
                .priority("P1", 1)
                .feedback(FeedbackPolicy.builder().period(Duration.ofSeconds(1)).build())
                .build(),
            new ManualClock());

    ProviderFeedback.toGate(gate)
        .observe(
            new ProviderResponse(
                "openai/gpt-4o",
                "gpt-4o",
                200,
                Map.of(
                    "x-ratelimit-limit-requests",
                    List.of("30"),
                    "x-ratelimit-remaining-requests",
                    List.of("29"))));

    // A provider limit of 30 per period (1 s) below the configured 60/s is adopted.
    assertThat(gate.feedbackState().signals()).isEqualTo(1);
    assertThat(gate.feedbackState().dimensions().get("requests").limit()).isEqualTo(30.0);
    assertThat(gate.feedbackState().dimensions().get("requests").effective())
        .isLessThanOrEqualTo(30.0);
  }

  /**
   * With the grant, what the call debited is the gate's own traffic: answers showing the provider
   * counted no more than the gate admitted reveal no outside traffic.
   *
   * <p>Mutation tried: {@code toGate} dropping the grant (the gate's own 40/s taken for outside
   * traffic).
   */
  @Test
  void toGate_countsTheGrantsDebitAsTheGatesOwnTraffic() {
    ManualClock clock = new ManualClock();
    InMemoryGate gate =
        InMemoryGate.create(
            Policy.builder("openai/gpt-4o")
                .requestsPerSecond(60)
                .priority("P1", 1)
                .feedback(FeedbackPolicy.builder().period(Duration.ofSeconds(1)).build())
                .build(),
            clock);
    ProviderFeedback feedback = ProviderFeedback.toGate(gate);
    for (int i = 0; i < 400; i++) {
      Admission answer = gate.admit(AdmissionRequest.of("acme", "P1", Cost.requests(1)));
      assertThat(answer)
          .as("call %d at 40/s under a cap of 60/s", i)
          .isInstanceOf(Admission.Admitted.class);
      Grant grant = ((Admission.Admitted) answer).grant();
      int inWindow = i % 40;
      clock.advance(Duration.ofMillis(25));
      feedback.observe(
          new ProviderResponse(
              "openai/gpt-4o",
              "gpt-4o",
              200,
              Map.of(
                  "x-ratelimit-limit-requests", List.of("60"),
                  "x-ratelimit-remaining-requests", List.of(Integer.toString(60 - inWindow - 1)),
                  "x-ratelimit-reset-requests", List.of((1000 - 25 * inWindow) + "ms"))),
          grant);
      gate.release(grant, Cost.requests(1));
    }
    assertThat(gate.feedbackState().dimensions().get("requests").outside()).isLessThan(6.0);
    assertThat(gate.feedbackState().dimensions().get("requests").effective()).isEqualTo(60.0);
  }
}
