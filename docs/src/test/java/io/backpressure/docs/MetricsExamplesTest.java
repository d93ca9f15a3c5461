package io.backpressure.docs;

import static org.assertj.core.api.Assertions.assertThat;

import io.backpressure.core.Cost;
import io.backpressure.core.Gate;
import io.backpressure.core.Policy;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

class MetricsExamplesTest {

  @Test
  void aMeteredGateCountsItsAdmissionsByOutcome() {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    Gate gate =
        MetricsExamples.metered(
            Policy.builder("openai/gpt-4o").requestsPerSecond(1).priority("P1", 1).build(),
            registry);
    gate.admit("acme", "P1", Cost.requests(1));
    gate.admit("acme", "P1", Cost.requests(1));
    assertThat(
            registry.find("backpressure.admissions").tag("outcome", "admitted").counter().count())
        .isEqualTo(1);
    assertThat(
            registry.find("backpressure.admissions").tag("outcome", "deferred").counter().count())
        .isEqualTo(1);
  }
}
