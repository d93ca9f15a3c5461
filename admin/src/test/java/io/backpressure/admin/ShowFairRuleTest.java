package io.backpressure.admin;

import static io.backpressure.admin.AdminTarget.TARGET;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import io.backpressure.core.Admission;
import io.backpressure.core.Cost;
import io.backpressure.core.Dimension;
import io.backpressure.core.GateLevels;
import io.backpressure.core.InMemoryGate;
import io.backpressure.core.ManualClock;
import io.backpressure.core.Policy;
import io.backpressure.redis.RedisGate;
import io.backpressure.redis.TimeSource;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@code admin show} of a target whose gates decide with the fair-queuing rule ({@code
 * RedisGateConfig.fairQueuing}): the levels are that rule's, as its in-memory gate reports them
 * after the same admissions, and the class levels it does not keep are not shown as numbers.
 */
class ShowFairRuleTest {
  private final AdminTarget target = new AdminTarget();

  @Test
  void showsTheFairRulesCapLevelsAndActiveQueuesAfterAdmissions() throws Exception {
    Policy policy =
        Policy.builder(TARGET)
            .dimension(Dimension.REQUESTS, 100, 100)
            .dimension(Dimension.TOKENS, 10_000, 10_000)
            .priority("P1", 0.7)
            .priority("P2", 0.3)
            .build();
    ManualClock clock = new ManualClock(1_000_000_000_000L);
    InMemoryGate memory = InMemoryGate.createFairQueuing(policy, clock);
    try (RedisGate gate =
        RedisGate.connect(
            target.config(policy).timeSource(TimeSource.caller(clock)).fairQueuing(true).build())) {
      for (String tenant : List.of("acme", "globex")) {
        Cost cost = Cost.requests(1).tokens(1_500);
        assertThat(gate.admit(tenant, "P1", cost)).isInstanceOf(Admission.Admitted.class);
        assertThat(memory.admit(tenant, "P1", cost)).isInstanceOf(Admission.Admitted.class);
      }
      clock.advance(Duration.ofMillis(20));
      Cost small = Cost.requests(1).tokens(500);
      assertThat(gate.admit("initech", "P2", small)).isInstanceOf(Admission.Admitted.class);
      assertThat(memory.admit("initech", "P2", small)).isInstanceOf(Admission.Admitted.class);
      GateLevels expected = memory.levels();

      JsonNode json = target.show("--json").json();
      assertThat(json.path("rule").asText()).isEqualTo("fair_queuing");
      JsonNode levels = json.path("levels");
      assertThat(levels.path("global").path(Dimension.TOKENS).asDouble())
          .isCloseTo(expected.global().get(Dimension.TOKENS), within(1e-6))
          .isLessThan(10_000);
      assertThat(levels.path("global").path(Dimension.REQUESTS).asDouble())
          .isCloseTo(expected.global().get(Dimension.REQUESTS), within(1e-9));
      assertThat(levels.path("active_queues").path("P1").asInt()).isEqualTo(2);
      assertThat(levels.path("active_queues").path("P2").asInt()).isEqualTo(1);
      assertThat(levels.path("admitted_per_second").path("P1").path(Dimension.TOKENS).asDouble())
          .isCloseTo(expected.admittedRates().get("P1").get(Dimension.TOKENS), within(1e-6))
          .isPositive();
      assertThat(levels.path("classes").isNull()).as("the rule keeps no class buckets").isTrue();

      String text = target.show().out();
      assertThat(text)
          .contains(
              "rule             fair queuing: the level is the cap's, no class buckets (class"
                  + " levels -)")
          .containsPattern("\\nP1 +0\\.7 +2 +- +- ")
          .containsPattern("\\nP2 +0\\.3 +1 +- +- ");
    }
  }

  @Test
  void showsTheNestedBucketsAsBefore() throws Exception {
    Policy policy =
        Policy.builder(TARGET).dimension(Dimension.REQUESTS, 100, 100).priority("P1", 1).build();
    try (RedisGate gate = target.gate(policy, new ManualClock())) {
      gate.admit("acme", "P1", Cost.requests(1));
      JsonNode json = target.show("--json").json();
      assertThat(json.path("rule").asText()).isEqualTo("nested_buckets");
      assertThat(json.path("levels").path("classes").path("P1").path(Dimension.REQUESTS).isNumber())
          .isTrue();
      assertThat(target.show().out()).doesNotContain("fair queuing");
    }
  }
}
