package io.backpressure.docs;

import io.backpressure.core.FailOpenGate;
import io.backpressure.core.Gate;
import io.backpressure.core.Policy;
import java.time.Duration;

/** The example of {@code docs/fail-modes.md}, run by {@link FailModeExamplesTest}. */
final class FailModeExamples {
  private FailModeExamples() {}

  static FailOpenGate resilient(Gate shared, Policy thisWorkersSlice) {
    // fail-modes: begin
    FailOpenGate gate =
        FailOpenGate.around(shared) // any gate whose state may not answer
            .mode(FailOpenGate.Mode.LOCAL) // OPEN (default): admit ungated; CLOSED: defer all
            .localFallback(thisWorkersSlice) // LOCAL: decide in memory with this worker's caps
            .timeout(Duration.ofMillis(250)) // give up on a stalled state after this long
            .build();
    // fail-modes: end
    return gate;
  }
}
