package io.backpressure.client;

import static org.assertj.core.api.Assertions.assertThat;

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
    InMemoryGate gate = InMemoryGate.create(Policy.builder("openai/gpt-4o").requestsPerSecond(60)
        .tokensPerSecond(10_000).priority("P1", 1)
        .feedback(FeedbackPolicy.builder().period(Duration.ofSeconds(1)).build()).build(), new ManualClock());

    ProviderFeedback.toGate(gate).observe(new ProviderResponse("openai/gpt-4o", "gpt-4o", 200,
        Map.of("x-ratelimit-limit-requests", List.of("30"), "x-ratelimit-remaining-requests", List.of("29"))));

    // A provider limit of 30 per period (1 s) below the configured 60/s is adopted.
    assertThat(gate.feedbackState().signals()).isEqualTo(1);
    assertThat(gate.feedbackState().dimensions().get("requests").limit()).isEqualTo(30.0);
    assertThat(gate.feedbackState().dimensions().get("requests").effective()).isLessThanOrEqualTo(30.0);
  }
}
