package io.backpressure.policy.yaml;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.backpressure.core.InvalidPolicyException;
import io.backpressure.core.Policy;
import io.backpressure.core.feedback.FeedbackPolicy;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class FeedbackPolicyYamlTest {
  private static final String BASE =
      """
      target: openai/gpt-4o
      dimensions: {requests: {per_second: 60}}
      priorities: {P1: 1}
      """;

  @Test
  void theBlockIsReadAndRoundTrips() {
    Policy policy =
        PolicyYaml.parse(
            BASE
                + """
        feedback:
          enabled: true
          period: 1s
          decrease: 0.7
          increase: 0.1
          floor: 0.1
          headroom: 0.02
          cooldown: 250ms
          outside_weight: 0.2
          ramp: {fraction: 0.5, duration: 20s}
          outage_errors: 3
        """);
    FeedbackPolicy f = policy.feedback();
    assertThat(f)
        .isEqualTo(
            FeedbackPolicy.builder()
                .period(Duration.ofSeconds(1))
                .decrease(0.7)
                .increase(0.1)
                .floor(0.1)
                .headroom(0.02)
                .cooldown(Duration.ofMillis(250))
                .outsideWeight(0.2)
                .ramp(0.5, Duration.ofSeconds(20))
                .outageErrors(3)
                .build());
    assertThat(PolicyYaml.parse(PolicyYaml.render(policy))).isEqualTo(policy);
  }

  @Test
  void missingKeysKeepTheDefaults() {
    assertThat(PolicyYaml.parse(BASE).feedback()).isEqualTo(FeedbackPolicy.DEFAULT);
    Policy off = PolicyYaml.parse(BASE + "feedback: {enabled: false}\n");
    assertThat(off.feedback()).isEqualTo(FeedbackPolicy.DISABLED);
    Policy ramp = PolicyYaml.parse(BASE + "feedback: {ramp: {duration: 5s}}\n");
    assertThat(ramp.feedback().rampFraction()).isEqualTo(FeedbackPolicy.DEFAULT.rampFraction());
    assertThat(ramp.feedback().rampDuration()).isEqualTo(Duration.ofSeconds(5));
  }

  @Test
  void badValuesNameTheFieldAndTheRange() {
    assertBad("feedback: {decrease: 1.0}", "feedback.decrease", "(0, 1)");
    assertBad("feedback: {increase: 0}", "feedback.increase", "(0, 1]");
    assertBad("feedback: {floor: 2}", "feedback.floor", "(0, 1]");
    assertBad("feedback: {headroom: 0.6}", "feedback.headroom", "[0, 0.5]");
    assertBad("feedback: {period: 0s}", "feedback.period", "PT0.001S");
    assertBad("feedback: {period: soon}", "feedback.period", "duration");
    assertBad("feedback: {cooldown: 11m}", "feedback.cooldown", "PT10M");
    assertBad("feedback: {outside_weight: -1}", "feedback.outside_weight", "(0, 1]");
    assertBad("feedback: {ramp: {fraction: 0}}", "feedback.ramp.fraction", "(0, 1]");
    assertBad("feedback: {ramp: {duration: 2h}}", "feedback.ramp.duration", "PT1H");
    assertBad("feedback: {ramp: {speed: 1}}", "feedback.ramp.speed", "allowed here");
    assertBad("feedback: {outage_errors: 2.5}", "feedback.outage_errors", "[1, 1000]");
    assertBad("feedback: {enabled: yes please}", "feedback.enabled", "true or false");
    assertBad("feedback: {learn: true}", "feedback.learn", "allowed here");
  }

  private static void assertBad(String block, String field, String range) {
    assertThatThrownBy(() -> PolicyYaml.parse(BASE + block + "\n"))
        .isInstanceOf(InvalidPolicyException.class)
        .hasMessageContaining(field)
        .hasMessageContaining(range)
        .satisfies(e -> assertThat(((InvalidPolicyException) e).field()).isEqualTo(field));
  }
}
