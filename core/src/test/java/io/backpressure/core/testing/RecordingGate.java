package io.backpressure.core.testing;

import io.backpressure.core.Admission;
import io.backpressure.core.AdmissionRequest;
import io.backpressure.core.Cost;
import io.backpressure.core.Gate;
import io.backpressure.core.Grant;
import io.backpressure.core.feedback.ProviderSignal;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.jspecify.annotations.Nullable;

/**
 * A gate that records what it was asked, released and charged, around a real one, for assertions.
 * Shared by every module's tests through the core's test-jar. Thread-safe.
 */
public final class RecordingGate implements Gate {

  /**
   * One release asked of the gate: the grant, the usage, and whether the gate applied it (false
   * also when the gate refused the usage by throwing).
   */
  public record Release(Grant grant, Cost actual, boolean applied) {}

  private final Gate delegate;
  private final List<AdmissionRequest> requests = new CopyOnWriteArrayList<>();
  private final List<Admission> admissions = new CopyOnWriteArrayList<>();
  private final List<Release> releases = new CopyOnWriteArrayList<>();
  private final List<Cost> charges = new CopyOnWriteArrayList<>();
  private final List<ProviderSignal> signals = new CopyOnWriteArrayList<>();

  public RecordingGate(Gate delegate) {
    this.delegate = delegate;
  }

  @Override
  public String target() {
    return delegate.target();
  }

  @Override
  public @Nullable Duration sendWithin() {
    return delegate.sendWithin();
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
    boolean applied;
    try {
      applied = delegate.release(grant, actual);
    } catch (RuntimeException refused) {
      releases.add(new Release(grant, actual, false));
      throw refused;
    }
    releases.add(new Release(grant, actual, applied));
    return applied;
  }

  @Override
  public void charge(Cost spent) {
    charges.add(spent);
    delegate.charge(spent);
  }

  @Override
  public void feedback(@Nullable Grant grant, ProviderSignal signal) {
    signals.add(signal);
    delegate.feedback(grant, signal);
  }

  /** The provider signals the gate heard ({@link Gate#feedback}), in order. */
  public List<ProviderSignal> signals() {
    return List.copyOf(signals);
  }

  /** What the gate was charged (the fail-open hand-back), in order. */
  public List<Cost> charges() {
    return List.copyOf(charges);
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

  /** The usage of every release, in order. */
  public List<Cost> releasedWith() {
    return releases.stream().map(Release::actual).toList();
  }

  /** Admitted grants not yet released. */
  public long outstanding() {
    long admitted = admissions.stream().filter(a -> a instanceof Admission.Admitted).count();
    return admitted - releases.stream().filter(Release::applied).count();
  }
}
