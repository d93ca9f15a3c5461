package io.backpressure.eval.sim;

import io.backpressure.eval.measure.Recording;
import io.backpressure.eval.workload.Workload;
import java.util.List;

/**
 * Runs one (workload, configuration, seed) and records what happened: the simulator ({@link
 * SimRunner}) or the real stack ({@code RealRunner}: Temporal, the mock provider over HTTP), both
 * behind the same {@link Recording}, so metrics, summaries and reports are shared.
 */
public interface Runner extends AutoCloseable {

  /** The value of {@code --mode} this runner implements. */
  String mode();

  /**
   * One run.
   *
   * @param seed the run's seed; a deterministic runner gives the same recording for the same seed
   */
  Recording run(Workload workload, Configuration configuration, long seed);

  /** The faults injected into every run ({@code --fault}, real mode), as given; none by default. */
  default List<String> faults() {
    return List.of();
  }

  /** Releases what the runner holds (the real runner's Temporal service). */
  @Override
  default void close() {}
}
