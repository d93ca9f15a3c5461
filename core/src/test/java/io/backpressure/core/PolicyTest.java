package io.backpressure.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.backpressure.core.feedback.FeedbackPolicy;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The builder's defaults and range checks; the YAML form is tested with {@code PolicyYaml}. */
class PolicyTest {

  @Test
  void aCapGivenPerMinuteMakesTheSafeWindowAMinuteUnlessOneIsGivenOrItIsOff() {
    Policy.Builder perMinuteBuilder = Policy.builder("t").requestsPerMinute(600).priority("P1", 1);
    assertThat(perMinuteBuilder.build().safeWindow()).isEqualTo(Duration.ofMinutes(1));
    assertThat(Policy.builder("t").tokensPerMinute(60_000).priority("P1", 1).build().safeWindow())
        .isEqualTo(Duration.ofMinutes(1));
    assertThat(perMinuteBuilder.withoutSafeWindow().build().safeWindow()).isNull();
    assertThat(perMinuteBuilder.safeWindow(Duration.ofSeconds(1)).build().safeWindow())
        .isEqualTo(Duration.ofSeconds(1));
    assertThat(Policy.builder("t").requestsPerSecond(10).priority("P1", 1).build().safeWindow())
        .isNull();
    assertThat(
            Policy.builder("t")
                .dimension("requests", 10, 10)
                .providerPeriod(Duration.ofSeconds(1))
                .priority("P1", 1)
                .build()
                .safeWindow())
        .isEqualTo(Duration.ofSeconds(1));
  }

  @Test
  void theProvidersPeriodIsThePeriodItsLimitHeadersAreReadIn_unlessFeedbackIsGiven() {
    Policy.Builder perSecond =
        Policy.builder("t")
            .requestsPerSecond(5)
            .providerPeriod(Duration.ofSeconds(1))
            .priority("P1", 1);
    assertThat(perSecond.build().feedback().period()).isEqualTo(Duration.ofSeconds(1));
    assertThat(Policy.builder("t").requestsPerSecond(5).priority("P1", 1).build().feedback())
        .isEqualTo(FeedbackPolicy.DEFAULT);
    assertThat(
            Policy.builder("t")
                .requestsPerMinute(300)
                .priority("P1", 1)
                .build()
                .feedback()
                .period())
        .isEqualTo(Duration.ofMinutes(1));
    FeedbackPolicy given = FeedbackPolicy.builder().period(Duration.ofSeconds(10)).build();
    assertThat(perSecond.feedback(given).build().feedback()).isEqualTo(given);
  }

  @Test
  void aClassTakesAWaitLimit_andThePolicyAPriorityMode() {
    assertThat(
            Policy.builder("t")
                .dimension("requests", 1, 1)
                .priority("P1", 1, Duration.ofMillis(250))
                .priorityMode(PriorityMode.STRICT)
                .build()
                .priorities()
                .get(0)
                .maxWait())
        .isEqualTo(Duration.ofMillis(250));
  }

  @Test
  void badValuesNameTheirField() {
    assertField(() -> Policy.builder("t").dimension("requests", -1, 1), "dimensions.requests.cap");
    assertField(
        () -> Policy.builder("t").dimension("requests", Double.NaN, 1), "dimensions.requests.cap");
    assertField(() -> Policy.builder("t").dimension("requests", 1, 0), "dimensions.requests.burst");
    assertField(() -> Policy.builder("t").priority("P1", 0), "priorities.P1");
    assertField(() -> Policy.builder("t").tenantWeight("acme", -2), "tenants.weights.acme");
    assertField(() -> Policy.builder("t").dimension("requests", 1, 1).build(), "priorities");
    assertField(() -> Policy.builder("t").priority("P1", 1).build(), "dimensions");
    assertField(
        () ->
            Policy.builder("t")
                .dimension("requests", 1, 1)
                .dimension("requests", 2, 2)
                .priority("P1", 1)
                .build(),
        "dimensions");
    assertField(
        () ->
            Policy.builder("t")
                .dimension("requests", 1, 1)
                .priority("P1", 1)
                .idleTtl(Duration.ZERO)
                .build(),
        "idle_ttl");
    assertField(
        () -> Policy.builder("t").priority("P1", 1, Duration.ZERO), "priorities.P1.max_wait");
  }

  private static void assertField(Runnable action, String field) {
    assertThatThrownBy(action::run)
        .isInstanceOfSatisfying(
            InvalidPolicyException.class,
            e -> {
              assertThat(e.field()).isEqualTo(field);
              assertThat(e.getMessage()).contains(field.replace("(document)", ""));
            });
  }
}
