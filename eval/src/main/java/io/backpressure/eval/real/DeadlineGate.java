package io.backpressure.eval.real;

import io.backpressure.core.Admission;
import io.backpressure.core.AdmissionRequest;
import io.backpressure.core.Cost;
import io.backpressure.core.Gate;
import io.backpressure.core.Grant;
import io.backpressure.core.feedback.ProviderSignal;
import io.backpressure.temporal.Backpressure;
import io.temporal.failure.ApplicationFailure;
import java.time.Duration;
import java.util.function.Supplier;

/**
 * A gate that gives each admission the wait limit of the call being run on this thread: {@code
 * ActivityGate} builds the {@link AdmissionRequest} itself, without a per-call {@code maxWait}, so
 * the activity runs its gated call {@link #within} the caller's remaining budget and this gate adds
 * it to every admission made meanwhile on the activity's thread. Decisions are otherwise the
 * delegate's, except that an {@link Admission.Expired} is thrown here as the non-retryable {@code
 * BackpressureExpired} failure the activity gate would map it to: the activity gate describes an
 * expiry with the request's own {@code maxWait}, which its requests do not carry. Thread-safe (the
 * limit is per thread).
 */
public final class DeadlineGate implements Gate {
  private final Gate gate;
  private final ThreadLocal<Duration> maxWait = new ThreadLocal<>();

  public DeadlineGate(Gate gate) {
    this.gate = gate;
  }

  /** Runs {@code call} with every admission on this thread limited to {@code wait}, or unlimited when null. */
  public <R> R within(Duration wait, Supplier<R> call) {
    maxWait.set(wait);
    try {
      return call.get();
    } finally {
      maxWait.remove();
    }
  }

  @Override
  public String target() {
    return gate.target();
  }

  @Override
  public Admission admit(AdmissionRequest request) {
    Duration wait = maxWait.get();
    Admission admission = gate.admit(wait == null || request.maxWait() != null ? request : request.withMaxWait(wait));
    if (admission instanceof Admission.Expired expired) {
      throw ApplicationFailure.newNonRetryableFailure(expired.message(), Backpressure.EXPIRED);
    }
    return admission;
  }

  @Override
  public boolean release(Grant grant, Cost actual) {
    return gate.release(grant, actual);
  }

  @Override
  public void feedback(Grant grant, ProviderSignal signal) {
    gate.feedback(grant, signal);
  }
}
