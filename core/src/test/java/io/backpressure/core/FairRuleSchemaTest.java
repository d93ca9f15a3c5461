package io.backpressure.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * {@link FairRuleSchema} declares every field {@link FairRule} reads out, and the read-out gives
 * every declared field once the rule has held a firm slot, used a safe window and let a queue rest.
 */
class FairRuleSchemaTest {

  @Test
  void theReadOutCoversTheSchemaAndNothingElse() {
    Policy policy =
        Policy.builder("schema/model")
            .dimension(Dimension.REQUESTS, 10, 2)
            .priority("P1", 0.6)
            .priority("P2", 0.4)
            .priorityMode(PriorityMode.STRICT)
            .safeWindow(Duration.ofSeconds(1))
            .idleTtl(Duration.ofSeconds(5))
            .build();
    ManualClock clock = new ManualClock(0);
    InMemoryGate gate = InMemoryGate.createFairQueuing(policy, clock);
    for (int i = 0; i < 6; i++) {
      gate.admit(AdmissionRequest.of("t" + i, "P1", Cost.requests(1)));
    }
    clock.advance(Duration.ofMillis(300));
    gate.admit(AdmissionRequest.of("t9", "P2", Cost.requests(1)));
    Map<String, Double> state = FairRuleSchema.read(gate);

    Set<String> read = new TreeSet<>();
    for (String key : state.keySet()) {
      read.add(
          key.replaceAll("^(queue\\[[^]]*]|(window|held)\\[\\d+]\\[\\d+])\\.", "")
              .replaceAll("\\[.*$", ""));
    }
    Set<String> declared = new TreeSet<>();
    FairRuleSchema.FIELDS.forEach(f -> declared.add(f.name()));
    assertThat(read).isEqualTo(declared);
    assertThat(state)
        .containsKeys("held[0][0].amount", "window[0][0].amount", "queue[0:t0].finish");
  }

  @Test
  void theLuaDeclaresEveryFieldAndConstant() {
    String lua = FairRuleSchema.lua();
    for (FairRuleSchema.Field f : FairRuleSchema.FIELDS) {
      assertThat(lua).contains("{ '" + f.name() + "', '");
    }
    assertThat(lua)
        .contains("MIN_DEFER_MICROS = 1000,")
        .contains("CORRECTION_WEIGHT = 0.2,")
        .contains("ISOLATION_MICROS = 100000,")
        .contains("{ 'tat', 'dimension', -math.huge }");
  }
}
