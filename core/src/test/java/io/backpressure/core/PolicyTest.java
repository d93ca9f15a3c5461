package io.backpressure.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class PolicyTest {
  private static final String YAML =
      """
      target: openai/gpt-4o
      dimensions:
        requests: {per_minute: 3600, burst: 1}
        tokens: {per_second: 12000, burst: 2000}
      priorities: {P1: 0.5, P2: 0.3, P3: 0.2}
      tenants: {default_weight: 1.0, weights: {acme: 2.0}}
      reservation: {enabled: true, default_max_tokens: 512}
      idle_ttl: 10s
      safe_window: 1s
      share_horizon: 1500ms
      grant_ttl: 15m
      """;

  @Test
  void yamlLoadsEveryField_andRoundTrips() {
    Policy policy = Policy.fromYaml(YAML);
    assertThat(policy.dimensions())
        .containsExactly(new Dimension("requests", 60, 1), new Dimension("tokens", 12_000, 2_000));
    assertThat(policy.priorityNames()).containsExactly("P1", "P2", "P3");
    assertThat(policy.tenantWeight("acme")).isEqualTo(2.0);
    assertThat(policy.tenantWeight("anyone")).isEqualTo(1.0);
    assertThat(policy.reservation()).isTrue();
    assertThat(policy.defaultMaxTokens()).isEqualTo(512);
    assertThat(policy.safeWindow()).isEqualTo(Duration.ofSeconds(1));
    assertThat(policy.shareHorizon()).isEqualTo(Duration.ofMillis(1500));
    assertThat(Policy.fromYaml(policy.toYaml())).isEqualTo(policy);
  }

  @Test
  void aCapGivenPerMinuteMakesTheSafeWindowAMinuteUnlessOneIsGivenOrItIsOff() {
    String perMinute = YAML.replace("safe_window: 1s\n", "");
    assertThat(Policy.fromYaml(perMinute).safeWindow()).isEqualTo(Duration.ofMinutes(1));
    assertThat(Policy.fromYaml(perMinute + "safe_window: off\n").safeWindow()).isNull();
    assertThat(Policy.fromYaml(perMinute + "safe_window: false\n").safeWindow()).isNull();
    assertThat(Policy.fromYaml(perMinute + "safe_window: null\n").safeWindow()).isNull();
    assertThat(Policy.fromYaml(YAML).safeWindow()).isEqualTo(Duration.ofSeconds(1));
    String perSecond = perMinute.replace("per_minute: 3600", "per_second: 60");
    assertThat(Policy.fromYaml(perSecond).safeWindow()).isNull();
    assertField(() -> Policy.fromYaml(perMinute + "safe_window: true\n"), "safe_window");
    assertField(() -> Policy.fromYaml(perMinute + "safe_window: soon\n"), "safe_window");

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
  void aPolicyWithoutSafeWindowRoundTripsWithoutOne() {
    Policy policy =
        Policy.builder("t")
            .requestsPerMinute(600)
            .tokensPerMinute(60_000)
            .priority("P1", 1)
            .withoutSafeWindow()
            .build();
    assertThat(Policy.fromYaml(policy.toYaml())).isEqualTo(policy);
  }

  @Test
  void classesTakeALongFormWithAWaitLimit_andAPriorityMode_andRoundTrip() {
    Policy policy =
        Policy.fromYaml(
            YAML.replace(
                "priorities: {P1: 0.5, P2: 0.3, P3: 0.2}",
                "priorities: {P1: 0.5, P2: {weight: 0.3}, P3: {weight: 0.2, max_wait: 30s}}\npriority_mode: strict"));
    assertThat(policy.priorities())
        .containsExactly(
            new PriorityClass("P1", 0.5),
            new PriorityClass("P2", 0.3),
            new PriorityClass("P3", 0.2, Duration.ofSeconds(30)));
    assertThat(policy.priorityMode()).isEqualTo(PriorityMode.STRICT);
    assertThat(Policy.fromYaml(policy.toYaml())).isEqualTo(policy);
    assertThat(Policy.fromYaml(YAML).priorityMode()).isEqualTo(PriorityMode.SHARED);
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
  }

  @Test
  void malformedYamlIsAnErrorNamingWhatIsWrong() {
    assertField(() -> Policy.fromYaml("target: [unclosed"), "(document)");
    assertField(() -> Policy.fromYaml(YAML.replace("idle_ttl: 10s", "idle_tll: 10s")), "idle_tll");
    assertField(
        () -> Policy.fromYaml(YAML.replace("burst: 1}", "burst: lots}")),
        "dimensions.requests.burst");
    assertField(
        () -> Policy.fromYaml(YAML.replace("{per_minute: 3600, burst: 1}", "{per_hour: 3600}")),
        "dimensions.requests.per_hour");
    assertField(() -> Policy.fromYaml(YAML.replace("idle_ttl: 10s", "idle_ttl: soon")), "idle_ttl");
    assertField(() -> Policy.fromYaml(YAML.replace("P2: 0.3", "P2: -0.3")), "priorities.P2");
    assertField(() -> Policy.fromYaml("target: x\npriorities: {P1: 1}\n"), "dimensions");
    assertField(() -> Policy.fromYaml(YAML + "priority_mode: fair\n"), "priority_mode");
    assertField(
        () -> Policy.fromYaml(YAML.replace("P3: 0.2", "P3: {weight: 0.2, max_wait: soon}")),
        "priorities.P3.max_wait");
    assertField(
        () -> Policy.fromYaml(YAML.replace("P3: 0.2", "P3: {weight: 0.2, wait: 1s}")),
        "priorities.P3.wait");
    assertField(
        () -> Policy.fromYaml(YAML.replace("P3: 0.2", "P3: {max_wait: 1s}")),
        "priorities.P3.weight");
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
