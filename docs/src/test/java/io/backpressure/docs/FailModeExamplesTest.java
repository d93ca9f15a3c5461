package io.backpressure.docs;

import static org.assertj.core.api.Assertions.assertThat;

import io.backpressure.core.Admission;
import io.backpressure.core.AdmissionRequest;
import io.backpressure.core.Cost;
import io.backpressure.core.FailOpenGate;
import io.backpressure.core.Gate;
import io.backpressure.core.Grant;
import io.backpressure.core.Policy;
import org.junit.jupiter.api.Test;

class FailModeExamplesTest {
  private static final Policy SLICE =
      Policy.builder("openai/gpt-4o").requestsPerSecond(2).priority("P1", 1).build();

  /** A shared state that never answers. */
  private static final Gate UNREACHABLE =
      new Gate() {
        @Override
        public String target() {
          return "openai/gpt-4o";
        }

        @Override
        public Admission admit(AdmissionRequest request) {
          throw new IllegalStateException("connection refused");
        }

        @Override
        public boolean release(Grant grant, Cost actual) {
          throw new IllegalStateException("connection refused");
        }
      };

  @Test
  void withTheStateAwayTheLocalSliceDecides() {
    try (FailOpenGate gate = FailModeExamples.resilient(UNREACHABLE, SLICE)) {
      int admitted = 0;
      int deferred = 0;
      for (int i = 0; i < 10; i++) {
        Admission a = gate.admit(AdmissionRequest.of("acme", "P1", Cost.requests(1)));
        if (a instanceof Admission.Admitted) {
          admitted++;
        } else if (a instanceof Admission.Deferred) {
          deferred++;
        }
      }
      // The local gate starts empty (createEmpty) and holds this worker's 2 requests/s.
      assertThat(admitted).isLessThanOrEqualTo(2);
      assertThat(deferred).isPositive();
    }
  }
}
