package io.backpressure.docs;

import io.backpressure.core.Gate;
import io.backpressure.core.InMemoryGate;
import io.backpressure.core.Policy;
import io.backpressure.metrics.MeteredGate;
import io.micrometer.core.instrument.MeterRegistry;

/** The example of {@code docs/metrics.md}, run by {@link MetricsExamplesTest}. */
final class MetricsExamples {
  private MetricsExamples() {}

  static Gate metered(Policy policy, MeterRegistry registry) {
    // metered: begin
    Gate gate = MeteredGate.builder(InMemoryGate.create(policy), registry).build();
    // metered: end
    return gate;
  }
}
