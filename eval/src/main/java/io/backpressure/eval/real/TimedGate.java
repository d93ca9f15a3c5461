package io.backpressure.eval.real;

import io.backpressure.core.Admission;
import io.backpressure.core.AdmissionRequest;
import io.backpressure.core.Cost;
import io.backpressure.core.Gate;
import io.backpressure.core.Grant;
import io.backpressure.core.feedback.ProviderSignal;

/**
 * A gate that records how long each admission takes into a {@link Ledger}, and notes on each thread
 * when its last admission was admitted (so that the send that follows can be timed from it);
 * decisions unchanged. Thread-safe.
 */
public final class TimedGate implements Gate {
  private final Gate gate;
  private final Ledger ledger;
  private final ThreadLocal<Long> admittedAt = new ThreadLocal<>();

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
    Admission answer;
    try {
      answer = gate.admit(request);
    } finally {
      ledger.admission(System.nanoTime() - start);
    }
    if (answer instanceof Admission.Admitted) {
      admittedAt.set(ledger.now());
    }
    return answer;
  }

  /**
   * When this thread's last admission was admitted, in the ledger's time, once: the next call
   * returns -1 until another admission.
   */
  long takeAdmittedAt() {
    Long at = admittedAt.get();
    admittedAt.remove();
    return at == null ? -1 : at;
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
