package io.backpressure.eval.real;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.backpressure.core.Policy;
import io.backpressure.eval.sim.Configuration;
import io.backpressure.eval.workload.Workload;
import io.backpressure.eval.workload.Workloads;
import io.backpressure.policy.yaml.PolicyYaml;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * {@code --send-margin-ms} in the workers' spec: a gated configuration's policy is the core's
 * {@link Policy#withSendMargin}, and a configuration without the safe window is refused with a
 * message naming the option (the bound itself is the core's {@code SendMarginTest}).
 */
class SendMarginSpecTest {
  private static final Workload WORKLOAD = Workloads.load("overload");

  private static RealWorker.Spec spec(String configuration, Duration margin) {
    return RealWorker.spec(
        WORKLOAD,
        Configuration.named(configuration),
        "send-margin",
        "http://127.0.0.1:1",
        4,
        null,
        null,
        margin);
  }

  @Test
  void aGatedPolicyIsWidenedByTheMargin() {
    Policy plain = PolicyYaml.parse(spec("bp", Duration.ZERO).policyYaml());
    Policy widened = PolicyYaml.parse(spec("bp", Duration.ofMillis(200)).policyYaml());
    assertThat(widened).isEqualTo(plain.withSendMargin(Duration.ofMillis(200)));
    assertThat(widened.safeWindow()).isEqualTo(plain.safeWindow().plus(Duration.ofMillis(200)));
  }

  @Test
  void aMarginForAConfigurationWithoutTheSafeWindowIsRefusedNamingTheOption() {
    assertThatThrownBy(() -> spec("bp-no-safe-window", Duration.ofMillis(200)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "--send-margin-ms needs a configuration with the safe window (not bp-no-safe-window)");
    assertThat(spec("bp-no-safe-window", Duration.ZERO).gated()).isTrue();
  }
}
