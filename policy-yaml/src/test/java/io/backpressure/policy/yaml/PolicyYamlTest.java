package io.backpressure.policy.yaml;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.backpressure.core.Dimension;
import io.backpressure.core.InvalidPolicyException;
import io.backpressure.core.Policy;
import io.backpressure.core.PriorityClass;
import io.backpressure.core.PriorityMode;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class PolicyYamlTest {
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
    Policy policy = PolicyYaml.parse(YAML);
    assertThat(policy.dimensions())
        .containsExactly(new Dimension("requests", 60, 1), new Dimension("tokens", 12_000, 2_000));
    assertThat(policy.priorityNames()).containsExactly("P1", "P2", "P3");
    assertThat(policy.tenantWeight("acme")).isEqualTo(2.0);
    assertThat(policy.tenantWeight("anyone")).isEqualTo(1.0);
    assertThat(policy.reservation()).isTrue();
    assertThat(policy.defaultMaxTokens()).isEqualTo(512);
    assertThat(policy.safeWindow()).isEqualTo(Duration.ofSeconds(1));
    assertThat(policy.shareHorizon()).isEqualTo(Duration.ofMillis(1500));
    assertThat(PolicyYaml.parse(PolicyYaml.render(policy))).isEqualTo(policy);
  }

  @Test
  void aCapGivenPerMinuteMakesTheSafeWindowAMinuteUnlessOneIsGivenOrItIsOff() {
    String perMinute = YAML.replace("safe_window: 1s\n", "");
    assertThat(PolicyYaml.parse(perMinute).safeWindow()).isEqualTo(Duration.ofMinutes(1));
    assertThat(PolicyYaml.parse(perMinute + "safe_window: off\n").safeWindow()).isNull();
    assertThat(PolicyYaml.parse(perMinute + "safe_window: false\n").safeWindow()).isNull();
    assertThat(PolicyYaml.parse(perMinute + "safe_window: null\n").safeWindow()).isNull();
    assertThat(PolicyYaml.parse(YAML).safeWindow()).isEqualTo(Duration.ofSeconds(1));
    String perSecond = perMinute.replace("per_minute: 3600", "per_second: 60");
    assertThat(PolicyYaml.parse(perSecond).safeWindow()).isNull();
    assertField(() -> PolicyYaml.parse(perMinute + "safe_window: true\n"), "safe_window");
    assertField(() -> PolicyYaml.parse(perMinute + "safe_window: soon\n"), "safe_window");
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
    assertThat(PolicyYaml.parse(PolicyYaml.render(policy))).isEqualTo(policy);
  }

  @Test
  void classesTakeALongFormWithAWaitLimit_andAPriorityMode_andRoundTrip() {
    Policy policy =
        PolicyYaml.parse(
            YAML.replace(
                "priorities: {P1: 0.5, P2: 0.3, P3: 0.2}",
                "priorities: {P1: 0.5, P2: {weight: 0.3}, P3: {weight: 0.2, max_wait: 30s}}\npriority_mode: strict"));
    assertThat(policy.priorities())
        .containsExactly(
            new PriorityClass("P1", 0.5),
            new PriorityClass("P2", 0.3),
            new PriorityClass("P3", 0.2, Duration.ofSeconds(30)));
    assertThat(policy.priorityMode()).isEqualTo(PriorityMode.STRICT);
    assertThat(PolicyYaml.parse(PolicyYaml.render(policy))).isEqualTo(policy);
    assertThat(PolicyYaml.parse(YAML).priorityMode()).isEqualTo(PriorityMode.SHARED);
  }

  @Test
  void malformedYamlIsAnErrorNamingWhatIsWrong() {
    assertField(() -> PolicyYaml.parse("target: [unclosed"), "(document)");
    assertField(() -> PolicyYaml.parse(YAML.replace("idle_ttl: 10s", "idle_tll: 10s")), "idle_tll");
    assertField(
        () -> PolicyYaml.parse(YAML.replace("burst: 1}", "burst: lots}")),
        "dimensions.requests.burst");
    assertField(
        () -> PolicyYaml.parse(YAML.replace("{per_minute: 3600, burst: 1}", "{per_hour: 3600}")),
        "dimensions.requests.per_hour");
    assertField(
        () -> PolicyYaml.parse(YAML.replace("idle_ttl: 10s", "idle_ttl: soon")), "idle_ttl");
    assertField(() -> PolicyYaml.parse(YAML.replace("P2: 0.3", "P2: -0.3")), "priorities.P2");
    assertField(() -> PolicyYaml.parse("target: x\npriorities: {P1: 1}\n"), "dimensions");
    assertField(() -> PolicyYaml.parse(YAML + "priority_mode: fair\n"), "priority_mode");
    assertField(
        () -> PolicyYaml.parse(YAML.replace("P3: 0.2", "P3: {weight: 0.2, max_wait: soon}")),
        "priorities.P3.max_wait");
    assertField(
        () -> PolicyYaml.parse(YAML.replace("P3: 0.2", "P3: {weight: 0.2, wait: 1s}")),
        "priorities.P3.wait");
    assertField(
        () -> PolicyYaml.parse(YAML.replace("P3: 0.2", "P3: {max_wait: 1s}")),
        "priorities.P3.weight");
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
