package io.backpressure.policy.yaml;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.backpressure.core.InvalidPolicyException;
import io.backpressure.core.Policy;
import java.time.Duration;
import java.util.List;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Test;

/** The YAML's {@code send_margin}: read as {@link Policy#withSendMargin}, written widened. */
class SendMarginYamlTest {
  private static final String YAML =
      """
      target: margin/model
      dimensions:
        requests: {per_second: 15, burst: 15}
        tokens: {per_second: 1500, burst: 3000}
      priorities: {P1: 1}
      safe_window: 1s
      """;

  @Test
  void yamlReadsTheMargin_andToYamlWritesTheWidenedPolicy() {
    Policy widened = PolicyYaml.parse(YAML + "send_margin: 100ms\n");
    assertThat(widened).isEqualTo(PolicyYaml.parse(YAML).withSendMargin(Duration.ofMillis(100)));
    assertThat(widened.safeWindow()).isEqualTo(Duration.ofMillis(1_100));
    String written = PolicyYaml.render(widened);
    assertThat(written).contains("1100ms").doesNotContain("send_margin");
    assertThat(PolicyYaml.parse(written)).isEqualTo(widened);
    assertThat(PolicyYaml.parse(YAML + "send_margin: 0.1\n")).isEqualTo(widened);
    assertThat(PolicyYaml.parse(YAML + "send_margin: PT0.1S\n")).isEqualTo(widened);
    assertThat(PolicyYaml.parse(YAML + "send_margin: 0s\n")).isEqualTo(PolicyYaml.parse(YAML));
    String perMinute = YAML.replace("{per_second: 15, burst: 15}", "{per_minute: 600}");
    assertThat(PolicyYaml.parse(perMinute.replace("safe_window: 1s\n", "") + "send_margin: 1s\n"))
        .extracting(Policy::safeWindow)
        .isEqualTo(Duration.ofSeconds(61));
  }

  @Test
  void yamlRefusesAMarginWithoutASafeWindow_ofTheWrongType_negative_orLongerThanTheWindow() {
    String off = YAML.replace("safe_window: 1s", "safe_window: off");
    assertRefused(
        () -> PolicyYaml.parse(off + "send_margin: 100ms\n"), "send_margin needs a safe_window");
    for (String wrong : List.of("true", "[100ms]", "{ms: 100}", "null")) {
      assertRefused(
          () -> PolicyYaml.parse(YAML + "send_margin: " + wrong + "\n"),
          "send_margin must be a duration such as 10s");
    }
    assertRefused(
        () -> PolicyYaml.parse(YAML + "send_margin: soon\n"),
        "send_margin must be a duration such as 250ms, 10s, 15m or PT10S, got 'soon'");
    assertRefused(
        () -> PolicyYaml.parse(YAML + "send_margin: -0.1\n"),
        "send_margin must be a duration in [0, safe_window], got -100ms");
    assertRefused(
        () -> PolicyYaml.parse(YAML + "send_margin: 1500ms\n"),
        "send_margin must be a duration in [0, 1s] (at most safe_window), got 1500ms");
  }

  /** {@code call} throws an {@link InvalidPolicyException} naming {@code send_margin}. */
  private static void assertRefused(ThrowingCallable call, String message) {
    assertThatThrownBy(call)
        .isInstanceOfSatisfying(
            InvalidPolicyException.class, e -> assertThat(e.field()).isEqualTo("send_margin"))
        .hasMessageStartingWith(message);
  }
}
