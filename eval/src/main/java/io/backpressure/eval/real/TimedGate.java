package io.backpressure.eval.real;

import io.backpressure.core.Admission;
import io.backpressure.core.AdmissionRequest;
import io.backpressure.core.Cost;
import io.backpressure.core.Gate;
import io.backpressure.core.Grant;
import io.backpressure.core.feedback.ProviderSignal;

/** A gate that records how long each admission takes into a {@link Ledger}; decisions unchanged. */
public final class TimedGate implements Gate {
  private final Gate gate;
  private final Ledger ledger;

  public TimedGate(Gate gate, Ledger ledger) {
    this.gate = gate;
    this.ledger = ledger;
  }

  @Override
  public String target() {
    return gate.target();
  }

  @Override
  public Admission admit(AdmissionRequest request) {
    long start = System.nanoTime();
    try {
      return gate.admit(request);
    } finally {
      ledger.admission(System.nanoTime() - start);
    }
  }

  @Override
  public boolean release(Grant grant, Cost actual) {
    return gate.release(grant, actual);
  }

  @Override
  public void feedback(Grant grant, ProviderSignal signal) {
    gate.feedback(grant, signal);
  }

  @Override
  public void charge(Cost spent) {
    gate.charge(spent);
  }
}
