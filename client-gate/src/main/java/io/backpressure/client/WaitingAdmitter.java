package io.backpressure.client;

import io.backpressure.core.Admission;
import io.backpressure.core.AdmissionRequest;
import io.backpressure.core.Cost;
import io.backpressure.core.Gate;
import io.backpressure.core.Grant;
import io.backpressure.core.RejectReason;
import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * {@link Admitter#waiting(Duration)}: a deferred call waits on the calling thread, keeping its
 * booking, and asks again when its turn comes. Each attempt carries the wait budget left and what
 * is left of the call's deadline for its answer ({@link AdmissionRequest#deadline()}), so the gate
 * answers {@link Admission.Expired} at once when the call's turn would come after either, and
 * {@link ExpiredException} reaches the caller without any waiting in vain. Thread-safe and
 * stateless; the sleep is {@link Thread#sleep}, which parks a virtual thread without pinning it.
 */
final class WaitingAdmitter implements Admitter {

  private final Duration maxWait;

  WaitingAdmitter(Duration maxWait) {
    this.maxWait = maxWait;
  }

  @Override
  public Grant admit(Gate gate, AdmissionRequest request) {
    long start = System.nanoTime();
    long waitEnd = start + budget(request).toNanos();
    Duration answerWithin = request.deadline();
    long answerBy = answerWithin == null ? 0 : start + answerWithin.toNanos();
    AdmissionRequest attempt = request;
    while (true) {
      long now = System.nanoTime();
      attempt = attempt.withMaxWait(Duration.ofNanos(Math.max(0, waitEnd - now)));
      if (answerWithin != null) {
        attempt = attempt.withDeadline(Duration.ofNanos(Math.max(0, answerBy - now)));
      }
      try {
        return DirectAdmitter.INSTANCE.admit(gate, attempt);
      } catch (DeferredException deferred) {
        try {
          Thread.sleep(Math.max(1, deferred.retryAfter().toMillis()));
        } catch (InterruptedException e) {
          // Not admitted: the caller gets the deferral itself, booking and all, to resume later.
          Thread.currentThread().interrupt();
          throw deferred;
        }
        attempt = attempt.withBooking(deferred.booking());
      }
    }
  }

  /** The smaller of this admitter's bound and the caller's own {@code maxWait}, if any. */
  private Duration budget(AdmissionRequest request) {
    Duration own = request.maxWait();
    return own != null && own.compareTo(maxWait) < 0 ? own : maxWait;
  }

  @Override
  public void release(Gate gate, Grant grant, Cost actual) {
    DirectAdmitter.INSTANCE.release(gate, grant, actual);
  }

  @Override
  public RuntimeException refused(RejectReason reason, @Nullable String message) {
    return DirectAdmitter.INSTANCE.refused(reason, message);
  }

  @Override
  public String toString() {
    return "waiting up to " + maxWait;
  }
}
