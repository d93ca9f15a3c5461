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
 * The in-memory gate decides against the effective caps it learns: eight callers always waiting, a
 * cap of 60 requests/s, and the provider's answers reported between steps of virtual time.
 */
class InMemoryGateFeedbackTest {
  private static final FeedbackPolicy FEEDBACK =
      FeedbackPolicy.builder()
          .period(Duration.ofSeconds(1))
          .ramp(0.25, Duration.ofSeconds(10))
          .build();

  private final ManualClock clock = new ManualClock();
  private final InMemoryGate gate =
      InMemoryGate.create(
          Policy.builder("openai/gpt-4o")
              .requestsPerSecond(60)
              .priority("P1", 1)
              .feedback(FEEDBACK)
              .build(),
          clock);
  private final Traffic traffic =
      new Traffic(gate, clock).callers("acme", "P1", Cost.requests(1), 8);

  /**
   * Mutation tried: {@code InMemoryGate.applyCaps} not reconfiguring the rule (60/s throughout).
   */
  @Test
  void aLowerLimitHeaderLowersWhatIsAdmitted_andItsReturnRestoresIt() {
    List<Traffic.Admitted> admitted = traffic.runUntil(5);
    assertThat(count(admitted, 1, 5)).isCloseTo(240, within(3.0));

    gate.feedback(null, ProviderSignal.ofStatus(200).withLimit("requests", 30.0, null, null));
    admitted = traffic.runUntil(15);
    assertThat(count(admitted, 7, 15)).isCloseTo(8 * 28.5, within(3.0));
    assertThat(gate.feedbackState().dimensions().get("requests").effective()).isEqualTo(28.5);
    assertThat(gate.policy().dimensions().get(0).capPerSecond()).as("C_d survives").isEqualTo(60.0);

    gate.feedback(null, ProviderSignal.ofStatus(200).withLimit("requests", 60.0, null, null));
    admitted = traffic.runUntil(20);
    assertThat(count(admitted, 16, 20)).isCloseTo(240, within(3.0));
  }

  @Test
  void a429CutsAdmissionsAndQuietAnswersBringThemBack() {
    traffic.runUntil(2);
    gate.feedback(null, ProviderSignal.rateLimited("requests", Duration.ofSeconds(1)));
    List<Traffic.Admitted> admitted = reportingEvery(0.1, 2, 4);
    assertThat(count(admitted, 2, 3))
        .as("retry-after 1 s: nothing is sent before it has passed")
        .isZero();
    assertThat(count(admitted, 3, 3.001))
        .as(
            "then what L1 refilled from empty at the cut cap (48/s) since the 429, as the window resets")
        .isCloseTo(48, within(3.0));
    assertThat(count(admitted, 3.1, 4))
        .as("then the cut cap, 0.8 · 60 = 48/s, growing by 3/s")
        .isCloseTo(0.9 * (48 + 3 * 0.55), within(3.0));
    admitted = reportingEvery(0.1, 4, 12);
    assertThat(count(admitted, 10, 12))
        .as("4 s of growth at 3/s: back to 60")
        .isCloseTo(120, within(3.0));
  }

  @Test
  void afterFailingOpenAdmissionRampsUp() {
    traffic.runUntil(2);
    gate.feedback(null, ProviderSignal.resumedAfterOutage());
    List<Traffic.Admitted> admitted = reportingEvery(0.1, 2, 14);
    double firstSecond = count(admitted, 2.1, 3.1);
    assertThat(firstSecond)
        .as("the ramp's first second: about 0.25-0.325 of 60")
        .isBetween(14.0, 21.0);
    assertThat(count(admitted, 7, 8)).isBetween(39.0, 47.0);
    assertThat(count(admitted, 12.5, 14)).isCloseTo(90, within(3.0));
    FeedbackState state = gate.feedbackState();
    assertThat(state.ramps()).isEqualTo(1);
    assertThat(state.rampMultiplier()).isEqualTo(1.0);
  }

  /**
   * The same ramp with no answer reported after the resumption: admission alone moves it.
   *
   * <p>Mutation tried: {@code admit} not handing the ramp's caps to the rule (15/s to the end).
   */
  @Test
  void theRampRisesWithTimeWhenNoAnswerIsReported() {
    traffic.runUntil(2);
    gate.feedback(null, ProviderSignal.resumedAfterOutage());
    List<Traffic.Admitted> admitted = traffic.runUntil(14);
    assertThat(count(admitted, 2.1, 3.1)).as("the ramp's first second").isBetween(14.0, 21.0);
    assertThat(count(admitted, 7, 8)).isBetween(39.0, 47.0);
    assertThat(count(admitted, 12.5, 14))
        .as("back at the cap after 10 s")
        .isCloseTo(90, within(3.0));
  }

  @Test
  void aHotUpdateOfTheCapKeepsTheLearnedLimit() {
    gate.feedback(null, ProviderSignal.ofStatus(200).withLimit("requests", 30.0, null, null));
    gate.updatePolicy(gate.policy().withDimension(new Dimension("requests", 50, 50)));
    assertThat(gate.feedbackState().dimensions().get("requests").effective()).isEqualTo(28.5);
    gate.updatePolicy(gate.policy().withDimension(new Dimension("requests", 20, 20)));
    assertThat(gate.feedbackState().dimensions().get("requests").effective()).isEqualTo(20.0);
    List<Traffic.Admitted> admitted = traffic.runUntil(6);
    assertThat(count(admitted, 1, 6)).isCloseTo(100, within(3.0));
  }

  @Test
  void aHotUpdateThatRenamesADimensionIsRefusedAndChangesNothing() {
    gate.feedback(null, ProviderSignal.ofStatus(200).withLimit("requests", 30.0, null, null));
    Policy renamed =
        Policy.builder("openai/gpt-4o")
            .requestsPerSecond(60)
            .tokensPerSecond(100)
            .priority("P1", 1)
            .feedback(FEEDBACK)
            .build();
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> gate.updatePolicy(renamed))
        .isInstanceOf(InvalidPolicyException.class);
    assertThat(gate.policy().dimensionNames()).containsExactly("requests");
    assertThat(gate.feedbackState().dimensions().get("requests").effective()).isEqualTo(28.5);
  }

  /**
   * A limit far below a small cap: the floor, 0.05 · 10/s = 0.5/s, would scale the burst of 10 to
   * half a request. The feedback does not throw, and the rule decides with a burst of one request:
   * one call every two seconds.
   *
   * <p>Mutation tried: the burst scaled without the clamp (the feedback throws).
   */
  @Test
  void aLimitThatScalesTheBurstBelowOneRequestLeavesABurstOfOne() {
    InMemoryGate small =
        InMemoryGate.create(
            Policy.builder("anthropic/claude")
                .requestsPerSecond(10)
                .priority("P1", 1)
                .feedback(FEEDBACK)
                .build(),
            clock);
    small.feedback(null, ProviderSignal.ofStatus(200).withLimit("requests", 0.0, null, null));
    FeedbackState.Dimension requests = small.feedbackState().dimensions().get("requests");
    assertThat(requests.effective()).isEqualTo(0.5);
    List<Traffic.Admitted> admitted =
        new Traffic(small, clock).callers("acme", "P1", Cost.requests(1), 4).runUntil(20);
    assertThat(count(admitted, 0, 20))
        .as("one at once, then one every 2 s")
        .isCloseTo(10, within(1.0));
  }

  /**
   * The same floor under a safe window of one second: an allowance of half a request would admit
   * nothing ever. The rule decides with one request per window, the least a provider's limit can
   * state, while the learned cap stays 0.5/s.
   *
   * <p>Mutation tried: no rate clamp (the feedback throws).
   */
  @Test
  void aLimitThatLeavesLessThanOneRequestPerSafeWindowLeavesOnePerWindow() {
    InMemoryGate small =
        InMemoryGate.create(
            Policy.builder("anthropic/claude")
                .requestsPerSecond(10)
                .safeWindow(Duration.ofSeconds(1))
                .priority("P1", 1)
                .feedback(FEEDBACK)
                .build(),
            clock);
    small.feedback(null, ProviderSignal.ofStatus(200).withLimit("requests", 0.0, null, null));
    assertThat(small.feedbackState().dimensions().get("requests").effective()).isEqualTo(0.5);
    List<Traffic.Admitted> admitted =
        new Traffic(small, clock).callers("acme", "P1", Cost.requests(1), 4).runUntil(20);
    assertThat(count(admitted, 0, 20)).as("one per second").isCloseTo(20, within(1.0));
  }

  /**
   * Runs the traffic from {@code from} to {@code to} seconds, reporting a quiet answer every {@code
   * step}.
   */
  private List<Traffic.Admitted> reportingEvery(double step, double from, double to) {
    List<Traffic.Admitted> admitted = null;
    for (double t = from + step; t <= to + 1e-9; t += step) {
      admitted = traffic.runUntil(t);
      gate.feedback(null, ProviderSignal.ofStatus(200));
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
