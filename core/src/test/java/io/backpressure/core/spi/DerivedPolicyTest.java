package io.backpressure.core.spi;

import static org.assertj.core.api.Assertions.assertThat;

import io.backpressure.core.Policy;
import io.backpressure.core.PriorityMode;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class DerivedPolicyTest {
  private static Policy.Builder twoDimensions() {
    return Policy.builder("t")
        .dimension("requests", 10, 20)
        .dimension("tokens", 100, 1_000)
        .priority("P1", 0.7)
        .priority("P2", 0.3)
        .shareHorizon(Duration.ofMillis(1500))
        .idleTtl(Duration.ofSeconds(10))
        .grantTtl(Duration.ofSeconds(90));
  }

  @Test
  void derivesEveryNumberInTheUnitsTheRuleUses() {
    DerivedPolicy derived =
        DerivedPolicy.of(twoDimensions().priorityMode(PriorityMode.STRICT).build());
    assertThat(derived.dimensions()).isEqualTo(2);
    assertThat(derived.classes()).isEqualTo(2);
    assertThat(derived.rate(0)).isEqualTo(10);
    assertThat(derived.rate(1)).isEqualTo(100);
    assertThat(derived.burst(1)).isEqualTo(1_000);
    assertThat(derived.largest(1)).isEqualTo(1_000);
    assertThat(derived.classWeight(0)).isEqualTo(0.7);
    assertThat(derived.classWeight(1)).isEqualTo(0.3);
    assertThat(derived.horizonSeconds()).isEqualTo(1.5);
    assertThat(derived.horizonMicros()).isEqualTo(1_500_000);
    assertThat(derived.idleTtlMicros()).isEqualTo(10_000_000);
    assertThat(derived.grantTtlMicros()).isEqualTo(90_000_000);
    assertThat(derived.grantTtlMillis()).isEqualTo(90_000);
    assertThat(derived.hasSafeWindow()).isFalse();
    assertThat(derived.safeWindowMicros()).isZero();
    assertThat(derived.allowance(0)).isZero();
    assertThat(derived.strict()).isTrue();
    assertThat(DerivedPolicy.of(twoDimensions().build()).strict()).isFalse();
  }

  @Test
  void aSafeWindowCapsTheLargestCostAtItsAllowance() {
    Policy policy = twoDimensions().safeWindow(Duration.ofMillis(500)).build();
    DerivedPolicy derived = DerivedPolicy.of(policy);
    assertThat(derived.hasSafeWindow()).isTrue();
    assertThat(derived.safeWindowMicros()).isEqualTo(500_000);
    assertThat(derived.allowance(0)).isEqualTo(5);
    assertThat(derived.allowance(1)).isEqualTo(50);
    // requests: burst 20 above the allowance 5; tokens: burst 1000 above 50.
    assertThat(derived.largest(0)).isEqualTo(5);
    assertThat(derived.largest(1)).isEqualTo(50);
    assertThat(DerivedPolicy.largestCost(policy, 1)).isEqualTo(derived.largest(1));
  }

  @Test
  void theGrantTtlInMillisecondsIsRoundedUp() {
    Policy policy = twoDimensions().grantTtl(Duration.ofNanos(1_000_000_001L)).build();
    DerivedPolicy derived = DerivedPolicy.of(policy);
    assertThat(derived.grantTtlMillis()).isEqualTo(1_001);
    assertThat(derived.grantTtlMicros()).isEqualTo(1_000_000);
  }
}
