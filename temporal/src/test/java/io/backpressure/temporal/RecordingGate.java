package io.backpressure.temporal;

import io.backpressure.core.Admission;
import io.backpressure.core.AdmissionRequest;
import io.backpressure.core.Cost;
import io.backpressure.core.Gate;
import io.backpressure.core.Grant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Wraps a gate and records every admission and release. With {@code dropBookings} it forgets the
 * booking of every retry, which is what a caller that does not carry bookings looks like.
 */
final class RecordingGate implements Gate {

  record Attempt(AdmissionRequest request, Admission admission, long atMillis) {}

  record Release(Grant grant, Cost actual, boolean applied) {}

  private final Gate delegate;
  private final boolean dropBookings;
  final List<Attempt> attempts = new CopyOnWriteArrayList<>();
  final List<Release> releases = new CopyOnWriteArrayList<>();

  RecordingGate(Gate delegate, boolean dropBookings) {
    this.delegate = delegate;
    this.dropBookings = dropBookings;
  }

  RecordingGate(Gate delegate) {
    this(delegate, false);
  }

  @Override
  public String target() {
    return delegate.target();
  }

  @Override
  public Admission admit(AdmissionRequest request) {
    Admission admission = delegate.admit(dropBookings ? request.withBooking(null) : request);
    attempts.add(new Attempt(request, admission, System.currentTimeMillis()));
    return admission;
  }

  @Override
  public boolean release(Grant grant, Cost actual) {
    boolean applied = delegate.release(grant, actual);
    releases.add(new Release(grant, actual, applied));
    return applied;
  }

  List<Attempt> attemptsOf(String tenant) {
    return attempts.stream().filter(a -> a.request().tenant().equals(tenant)).toList();
  }

  long deferrals() {
    return attempts.stream().filter(a -> a.admission() instanceof Admission.Deferred).count();
  }

  long admitted() {
    return attempts.stream().filter(a -> a.admission() instanceof Admission.Admitted).count();
  }
}
