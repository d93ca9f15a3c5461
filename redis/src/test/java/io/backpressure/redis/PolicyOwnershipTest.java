package io.backpressure.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.backpressure.core.Policy;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** What connecting does with a configured policy when the target already has one in Redis. */
class PolicyOwnershipTest {
  private static final Policy STORED =
      Policy.builder("own/model")
          .dimension("requests", 5, 5)
          .priority("P1", 0.7)
          .priority("P2", 0.3)
          .build();
  private static final Policy CONFIGURED =
      Policy.builder("own/model")
          .dimension("requests", 10, 5)
          .priority("P1", 0.6)
          .priority("P2", 0.3)
          .build();

  private static RedisGate connect(String prefix, Policy policy, PolicyOwnership ownership) {
    return RedisGate.over(
        TestRedis.shared().connection(),
        false,
        RedisGateConfig.builder(TestRedis.shared().url())
            .keyPrefix(prefix)
            .policy(policy, ownership)
            .build());
  }

  @Test
  void createIfAbsent_keepsTheStoredPolicy_withAWarningNamingTheDifferences() {
    String prefix = TestRedis.freshPrefix();
    connect(prefix, STORED, PolicyOwnership.CREATE_IF_ABSENT);
    PrintStream stderr = System.err;
    ByteArrayOutputStream log = new ByteArrayOutputStream();
    System.setErr(new PrintStream(log, true, StandardCharsets.UTF_8));
    try {
      assertThat(connect(prefix, CONFIGURED, PolicyOwnership.CREATE_IF_ABSENT).policy())
          .isEqualTo(STORED);
    } finally {
      System.setErr(stderr);
    }
    assertThat(log.toString(StandardCharsets.UTF_8))
        .contains(
            "WARN",
            "own/model",
            "dimensions.requests.per_second: stored 5.0, configured 10.0",
            "priorities.P1: stored 0.7, configured 0.6");
  }

  @Test
  void replace_writesTheConfiguredPolicy() {
    String prefix = TestRedis.freshPrefix();
    connect(prefix, STORED, PolicyOwnership.CREATE_IF_ABSENT);
    assertThat(connect(prefix, CONFIGURED, PolicyOwnership.REPLACE).policy()).isEqualTo(CONFIGURED);
    assertThat(connect(prefix, STORED, PolicyOwnership.CREATE_IF_ABSENT).policy())
        .isEqualTo(CONFIGURED);
  }

  @Test
  void verify_failsNamingEveryDifferingField_andPassesWhenEqual() {
    String prefix = TestRedis.freshPrefix();
    connect(prefix, STORED, PolicyOwnership.VERIFY);
    assertThatThrownBy(() -> connect(prefix, CONFIGURED, PolicyOwnership.VERIFY))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("dimensions.requests.per_second: stored 5.0, configured 10.0")
        .hasMessageContaining("priorities.P1: stored 0.7, configured 0.6")
        .message()
        .doesNotContain("P2");
    assertThat(connect(prefix, STORED, PolicyOwnership.VERIFY).policy()).isEqualTo(STORED);
  }

  @Test
  void theDifferencesNameFieldsOnBothSides() {
    Policy extra =
        Policy.builder("own/model")
            .dimension("requests", 5, 5)
            .dimension("tokens", 100, 100)
            .priority("P1", 0.7)
            .priority("P2", 0.3)
            .tenantWeight("acme", 2)
            .build();
    assertThat(PolicyDiff.between(STORED, extra))
        .containsExactly(
            "dimensions.tokens: stored (none), configured {\"per_second\":100.0,\"burst\":100.0}",
            "tenants.weights.acme: stored (none), configured 2.0");
    assertThat(PolicyDiff.between(STORED, STORED)).isEmpty();
  }
}
