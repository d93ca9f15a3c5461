package io.backpressure.integration;

import io.backpressure.core.Admission;
import io.backpressure.core.AdmissionRequest;
import io.backpressure.core.Cost;
import io.backpressure.core.Gate;
import io.backpressure.core.Grant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** A real gate that also remembers what it was asked and released with, for assertions. */
final class RecordingGate implements Gate {
  final Gate delegate;
  final List<AdmissionRequest> requests = new CopyOnWriteArrayList<>();
  final List<Cost> releases = new CopyOnWriteArrayList<>();

  RecordingGate(Gate delegate) {
    this.delegate = delegate;
  }

  @Override
  public String target() {
    return delegate.target();
  }

  @Override
  public Admission admit(AdmissionRequest request) {
    requests.add(request);
    return delegate.admit(request);
  }

  @Override
  public boolean release(Grant grant, Cost actual) {
    releases.add(actual);
    return delegate.release(grant, actual);
  }
}
