package io.backpressure.client.test;

import io.backpressure.core.Admission;
import io.backpressure.core.AdmissionRequest;
import io.backpressure.core.Cost;
import io.backpressure.core.Gate;
import io.backpressure.core.Grant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** A gate that records what it was asked and released, around a real one. For tests only. */
public final class RecordingGate implements Gate {

  /** One release: the grant and the usage it was released with. */
  public record Release(Grant grant, Cost actual, boolean applied) {}

  private final Gate delegate;
  private final List<AdmissionRequest> requests = new CopyOnWriteArrayList<>();
  private final List<Admission> admissions = new CopyOnWriteArrayList<>();
  private final List<Release> releases = new CopyOnWriteArrayList<>();

  public RecordingGate(Gate delegate) {
    this.delegate = delegate;
  }

  @Override
  public String target() {
    return delegate.target();
  }

  @Override
  public Admission admit(AdmissionRequest request) {
    requests.add(request);
    Admission admission = delegate.admit(request);
    admissions.add(admission);
    return admission;
  }

  @Override
  public boolean release(Grant grant, Cost actual) {
    boolean applied = delegate.release(grant, actual);
    releases.add(new Release(grant, actual, applied));
    return applied;
  }

  public List<AdmissionRequest> requests() {
    return List.copyOf(requests);
  }

  public List<Admission> admissions() {
    return List.copyOf(admissions);
  }

  public List<Release> releases() {
    return List.copyOf(releases);
  }

  /** Admitted grants not yet released. */
  public long outstanding() {
    long admitted = admissions.stream().filter(a -> a instanceof Admission.Admitted).count();
    return admitted - releases.stream().filter(Release::applied).count();
  }
}
