package io.backpressure.temporal;

import static org.assertj.core.api.Assertions.assertThat;

import io.backpressure.core.Admission;
import io.backpressure.core.AdmissionRequest;
import io.backpressure.core.Cost;
import io.backpressure.core.Gate;
import io.backpressure.core.Grant;
import io.backpressure.core.InMemoryGate;
import io.backpressure.core.Policy;
import io.backpressure.core.feedback.FeedbackPolicy;
import io.backpressure.core.feedback.ProviderSignal;
import io.backpressure.core.feedback.ProviderSignals;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * An activity reports the provider's answers through {@link ActivityGate.Answers}; the gate learns
 * from each after the release, on success and when the call throws on a 429.
 */
class ActivityGateFeedbackTest extends HarnessTest {

  /**
   * A provider whose answers carry OpenAI's headers: a 60 requests per minute limit, and a 429
   * mode.
   */
  static final class ReportingActivities implements ChatActivities {
    private final ActivityGate gate;

    ReportingActivities(ActivityGate gate) {
      this.gate = gate;
    }

    @Override
    public String chat(ChatInput input) {
      return gate.call(
          input,
          answers -> {
            boolean limited = input.mode().equals("429");
            answers.report(
                ProviderSignals.parse(
                    limited ? 429 : 200,
                    Map.of(
                        "x-ratelimit-limit-requests",
                        List.of("1800"),
                        "x-ratelimit-remaining-requests",
                        List.of(limited ? "0" : "1700"),
                        "x-ratelimit-reset-requests",
                        List.of(limited ? "59s" : "20s")),
                    limited
                        ? "{\"error\":{\"type\":\"requests\",\"code\":\"rate_limit_exceeded\"}}"
                        : "{}",
                    Instant.now()));
            if (limited) {
              throw new IOException("HTTP 429");
            }
            return "ok:" + input.tenant();
          },
          reply -> Cost.requests(1).tokens(150));
    }

    @Override
    public String chatByPriority(String mode) {
      throw new UnsupportedOperationException();
    }
  }

  /** Records what the gate was told, then passes it on. */
  static final class Listening implements Gate {
    final List<ProviderSignal> signals = new CopyOnWriteArrayList<>();
    final List<Grant> grants = new CopyOnWriteArrayList<>();
    private final Gate gate;

    Listening(Gate gate) {
      this.gate = gate;
    }

    @Override
    public String target() {
      return gate.target();
    }

    @Override
    public Admission admit(AdmissionRequest request) {
      return gate.admit(request);
    }

    @Override
    public boolean release(Grant grant, Cost actual) {
      return gate.release(grant, actual);
    }

    @Override
    public void feedback(Grant grant, ProviderSignal signal) {
      grants.add(grant);
      signals.add(signal);
      gate.feedback(grant, signal);
    }
  }

  @Test
  void theAnswersOfSuccessesAnd429sReachTheGate() {
    InMemoryGate memory =
        InMemoryGate.create(
            Policy.builder("test")
                .requestsPerSecond(100)
                .tokensPerSecond(10_000)
                .priority("P1", 1)
                .feedback(FeedbackPolicy.DEFAULT)
                .build());
    Listening gate = new Listening(memory);
    String queue = "q-" + UUID.randomUUID();
    harness.start(
        queue,
        BackpressureInterceptor.transparent(Duration.ofMinutes(1)),
        1,
        new ReportingActivities(ActivityGate.of(gate)),
        Workflows.Plain.class);

    assertThat(
            harness
                .workflow(queue, "wf-" + UUID.randomUUID())
                .chat(new ChatInput("a", "P1", 400, "ok"), 60_000))
        .isEqualTo("ok:a");
    assertThat(gate.signals).hasSize(1);
    assertThat(gate.signals.get(0).usage()).isEqualTo(Cost.requests(1).tokens(150));
    assertThat(gate.grants.get(0)).isNotNull();
    assertThat(memory.feedbackState().dimensions().get("requests").effective())
        .as("1800/min adopted")
        .isEqualTo(0.95 * 30);

    assertThat(
            harness
                .workflow(queue, "wf-" + UUID.randomUUID())
                .chat(new ChatInput("a", "P1", 400, "429"), 60_000))
        .startsWith("failed:java.io.IOException");
    assertThat(gate.signals).hasSize(2);
    assertThat(gate.signals.get(1).rateLimited()).isTrue();
    assertThat(gate.signals.get(1).exhausted()).containsExactly("requests");
    assertThat(memory.feedbackState().decreases()).isEqualTo(1);
    assertThat(memory.feedbackState().dimensions().get("requests").cooldownSeconds())
        .isGreaterThan(15);
  }
}
