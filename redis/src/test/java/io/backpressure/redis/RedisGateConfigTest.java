package io.backpressure.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.backpressure.core.FailOpenGate;
import io.backpressure.core.Policy;
import org.junit.jupiter.api.Test;

class RedisGateConfigTest {
  private static final Policy POLICY =
      Policy.builder("cfg/model").requestsPerSecond(10).priority("P1", 1).build();

  @Test
  void failsOpenByDefault_andCreatesThePolicyOnlyIfAbsent() {
    RedisGateConfig config =
        RedisGateConfig.builder("redis://127.0.0.1:6379").policy(POLICY).build();
    assertThat(config.whenUnavailable()).isEqualTo(FailOpenGate.Mode.OPEN);
    assertThat(config.ownership()).isEqualTo(PolicyOwnership.CREATE_IF_ABSENT);
  }

  @Test
  void neitherToStringNorAUrlErrorShowsThePassword() {
    RedisGateConfig config =
        RedisGateConfig.builder("rediss://app:Sup3r-secret@redis:6380").policy(POLICY).build();
    assertThat(config.toString())
        .contains("rediss://***@redis:6380")
        .doesNotContain("Sup3r-secret");
    assertThatThrownBy(
            () -> RedisGateConfig.builder("ftp://:Sup3r-secret@host:6379").target("t").build())
        .hasMessageStartingWith("url must be")
        .message()
        .doesNotContain("Sup3r-secret");
  }

  @Test
  void localModeNeedsThePolicy() {
    assertThatThrownBy(
            () ->
                RedisGateConfig.builder("redis://127.0.0.1:6379")
                    .target("cfg/model")
                    .whenUnavailable(FailOpenGate.Mode.LOCAL)
                    .build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("whenUnavailable LOCAL needs the policy");
  }

  @Test
  void theLocalSliceDividesEveryCapBetweenTheLiveWorkers_keepingBursts() {
    Policy two =
        Policy.builder("cfg/model")
            .dimension("requests", 30, 5)
            .dimension("tokens", 9_000, 3_000)
            .priority("P1", 1)
            .build();
    Policy slice = ResilientRedisGate.slice(two, 3);
    assertThat(slice.dimensions().get(0).capPerSecond()).isEqualTo(10);
    assertThat(slice.dimensions().get(0).burst()).isEqualTo(5);
    assertThat(slice.dimensions().get(1).capPerSecond()).isEqualTo(3_000);
    assertThat(ResilientRedisGate.slice(two, 1)).isEqualTo(two);
  }
}
