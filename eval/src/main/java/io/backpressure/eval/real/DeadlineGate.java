package io.backpressure.eval.real;

import io.backpressure.core.Admission;
import io.backpressure.core.AdmissionRequest;
import io.backpressure.core.Cost;
import io.backpressure.core.Gate;
import io.backpressure.core.Grant;
import io.backpressure.core.feedback.ProviderSignal;
import java.time.Duration;
import java.util.function.Supplier;

/**
 * A gate that gives each admission the terms of the call being run on this thread. {@code
 * ActivityGate} and the gated openai-java client build the {@link AdmissionRequest} themselves:
 * without a per-call {@code maxWait}, and (the client) with the cost and {@code max_tokens} it
 * reads from the request body, which here are the prompt counted at 4 characters per token plus the
 * message overheads and the completion the mock is told to write. So the activity runs its gated
 * call {@link #within} the call's {@link Terms} and this gate puts them on every admission made
 * meanwhile on the activity's thread: the caller's remaining wait budget and deadline, and the
 * workload's own estimate and {@code max_tokens}, so the gate decides exactly as in the simulator.
 * Decisions are the delegate's; an {@link Admission.Expired} is answered as such, and the activity
 * gate turns it into the non-retryable {@code BackpressureExpired} failure (thrown here, it would
 * reach the activity gate's fail-open wrapper as an outage, and the call would be admitted).
 * Thread-safe (the terms are per thread).
 */
public final class DeadlineGate implements Gate {
  private final Gate gate;

  // Per gate, not static: each gate's own terms, which within() removes after every call.
  @SuppressWarnings("ThreadLocalUsage")
  private final ThreadLocal<Terms> terms = new ThreadLocal<>();

  public DeadlineGate(Gate gate) {
    this.gate = gate;
  }

  /**
   * What every admission of one call carries.
   *
   * @param maxWait how much longer the caller waits for the call's turn, or null for no limit
   * @param deadline how much longer the caller waits for the call's answer, or null for none
   * @param cost the call's estimated cost, or null to keep the request's
   * @param maxTokens the call's reservation bound (the workload's {@code max_tokens}), or null for
   *     none; used only with a {@code cost}
   */
  public record Terms(Duration maxWait, Duration deadline, Cost cost, Long maxTokens) {}

  /** Runs {@code call} with every admission on this thread given {@code callTerms}. */
  public <R> R within(Terms callTerms, Supplier<R> call) {
    terms.set(callTerms);
    try {
      return call.get();
    } finally {
      terms.remove();
    }
  }

  @Override
  public String target() {
    return gate.target();
  }

  @Override
  public Admission admit(AdmissionRequest request) {
    return gate.admit(withTerms(request, terms.get()));
  }

  private static AdmissionRequest withTerms(AdmissionRequest request, Terms terms) {
    if (terms == null) {
      return request;
    }
    AdmissionRequest r =
        terms.cost() == null
            ? request
            : new AdmissionRequest(
                request.tenant(),
                request.priority(),
                terms.cost(),
                terms.maxTokens(),
                request.booking(),
                request.maxWait(),
                request.deadline());
    if (terms.maxWait() != null && r.maxWait() == null) {
      r = r.withMaxWait(terms.maxWait());
    }
    // The workload's deadline and the activity's timeout (ActivityGate) both bound the wait: the
    // shorter wins.
    if (terms.deadline() == null
        || (r.deadline() != null && r.deadline().compareTo(terms.deadline()) <= 0)) {
      return r;
    }
    return r.withDeadline(terms.deadline());
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
