package io.backpressure.eval.real;

import static org.assertj.core.api.Assertions.assertThat;

import io.backpressure.core.Admission;
import io.backpressure.core.AdmissionRequest;
import io.backpressure.core.Cost;
import io.backpressure.core.Gate;
import io.backpressure.core.Grant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

/**
 * The harness's gate wrappers pass the fail-open hand-back ({@link Gate#charge}) on to the gate
 * they wrap, so what a worker admitted without the shared state reaches it.
 */
class WrapperChargeTest {

  /** Records what it was charged; admits everything. */
  private static final class ChargeRecorder implements Gate {
    final List<Cost> charges = new CopyOnWriteArrayList<>();

    @Override
    public String target() {
      return "wrapped/model";
    }

    @Override
    public Admission admit(AdmissionRequest request) {
      return new Admission.Admitted(
          new Grant("g", request.tenant(), request.priority(), request.cost(), false));
    }

    @Override
    public boolean release(Grant grant, Cost actual) {
      return true;
    }

    @Override
    public void charge(Cost spent) {
      charges.add(spent);
    }
  }

  private static void forwards(UnaryOperator<Gate> wrap) {
    ChargeRecorder inner = new ChargeRecorder();
    wrap.apply(inner).charge(Cost.requests(3));
    assertThat(inner.charges).containsExactly(Cost.requests(3));
  }

  @Test
  void timedGateForwardsACharge() {
    forwards(inner -> new TimedGate(inner, new Ledger(Ledger.epochNanos())));
  }

  @Test
  void deadlineGateForwardsACharge() {
    forwards(DeadlineGate::new);
  }
}
