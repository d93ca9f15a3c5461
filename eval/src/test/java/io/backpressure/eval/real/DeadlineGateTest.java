package io.backpressure.eval.real;

import static org.assertj.core.api.Assertions.assertThat;

import io.backpressure.core.Admission;
import io.backpressure.core.AdmissionRequest;
import io.backpressure.core.Cost;
import io.backpressure.core.Gate;
import io.backpressure.core.Grant;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * Real mode puts a call's terms on its admissions as the simulator does: its remaining wait budget
 * (the deadline less the fixed answer margin) and its remaining deadline, which the gate compares
 * with the latency it measures.
 */
class DeadlineGateTest {

  /** Records the requests it was asked; admits everything. */
  private static final class Recorder implements Gate {
    final List<AdmissionRequest> requests = new CopyOnWriteArrayList<>();

    @Override
    public String target() {
      return "wrapped/model";
    }

    @Override
    public Admission admit(AdmissionRequest request) {
      requests.add(request);
      return new Admission.Admitted(
          new Grant("g", request.tenant(), request.priority(), request.cost(), false));
    }

    @Override
    public boolean release(Grant grant, Cost actual) {
      return true;
    }
  }

  @Test
  void theCallsRemainingWaitAndDeadlineReachTheGate_asTheSimulatorGivesThem() {
    CallInput call = new CallInput("c/0", 0, "a", "P1", 10_000, 100, 50, null, 12_000, 0, 250);
    assertThat(call.maxWait(10_500)).isEqualTo(Duration.ofMillis(1_250));
    assertThat(call.deadline(10_500)).isEqualTo(Duration.ofMillis(1_500));
    assertThat(call.deadline(13_000)).isEqualTo(Duration.ZERO);
    Recorder inner = new Recorder();
    DeadlineGate gate = new DeadlineGate(inner);
    DeadlineGate.Terms terms =
        new DeadlineGate.Terms(call.maxWait(10_500), call.deadline(10_500), Cost.requests(1), null);
    gate.within(terms, () -> gate.admit(AdmissionRequest.of("a", "P1", Cost.requests(1))));
    gate.within(
        new DeadlineGate.Terms(call.maxWait(10_500), call.deadline(10_500), null, null),
        () -> gate.admit(AdmissionRequest.of("a", "P1", Cost.requests(1))));
    assertThat(inner.requests)
        .allSatisfy(
            r -> {
              assertThat(r.maxWait()).isEqualTo(Duration.ofMillis(1_250));
              assertThat(r.deadline()).isEqualTo(Duration.ofMillis(1_500));
            });

    CallInput noDeadline = new CallInput("c/1", 0, "a", "P1", 10_000, 100, 50, null, 0, 0, 250);
    assertThat(noDeadline.deadline(10_500)).isNull();
  }
}
