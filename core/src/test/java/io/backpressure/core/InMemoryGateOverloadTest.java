package io.backpressure.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.backpressure.core.feedback.FeedbackPolicy;
import io.backpressure.core.feedback.FeedbackState;
import io.backpressure.core.feedback.ProviderSignal;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * An overloaded provider (Anthropic's 529) is not a lower cap: eight callers always waiting, a cap
 * of 60 requests/s, the default feedback policy (ramp from half the caps over 1 s, cooldown 1 s),
 * and 529s answered for five seconds of virtual time.
 */
class InMemoryGateOverloadTest {

  private final ManualClock clock = new ManualClock();
  private final InMemoryGate gate =
      InMemoryGate.create(
          Policy.builder("anthropic/claude-sonnet")
              .requestsPerSecond(60)
              .priority("P1", 1)
              .feedback(FeedbackPolicy.builder().period(Duration.ofSeconds(1)).build())
              .build(),
          clock);
  private final Traffic traffic =
      new Traffic(gate, clock).callers("acme", "P1", Cost.requests(1), 8);

  /**
   * Fails when the overload is read as a 429 (the cap is cut and still below 60 two seconds after
   * the end) or as a provider error (no back-off: 60/s throughout).
   */
  @Test
  void fiveSecondsOf529sBackOffAndAdmissionIsWholeAgainWithinTwoSecondsWithTheCapsUnchanged() {
    traffic.runUntil(2);
    List<Traffic.Admitted> admitted = answering(ProviderSignal.ofStatus(529), 2, 7);
    assertThat(count(admitted, 2.5, 7) / 4.5)
        .as("backed off: every 529 empties the burst and restarts the ramp from half the cap")
        .isBetween(15.0, 36.0);

    admitted = answering(ProviderSignal.ofStatus(200), 7, 10);
    assertThat(count(admitted, 9, 10))
        .as("whole again 2 s after the end")
        .isCloseTo(60, within(3.0));
    FeedbackState state = gate.feedbackState();
    assertThat(state.dimensions().get("requests").effective()).isEqualTo(60.0);
    assertThat(state.decreases()).isZero();
    assertThat(state.outage()).isFalse();
  }

  /**
   * Runs the traffic from {@code from} to {@code to} seconds, reporting {@code answer} every 0.1 s.
   */
  private List<Traffic.Admitted> answering(ProviderSignal answer, double from, double to) {
    List<Traffic.Admitted> admitted = null;
    for (int step = 1; from + step * 0.1 <= to + 1e-9; step++) {
      admitted = traffic.runUntil(from + step * 0.1);
      gate.feedback(null, answer);
    }
    return admitted;
  }

  private static double count(
      List<Traffic.Admitted> admitted, double fromSeconds, double toSeconds) {
    return admitted.stream()
        .filter(a -> a.nanos() >= fromSeconds * 1e9 && a.nanos() < toSeconds * 1e9)
        .count();
  }
}
