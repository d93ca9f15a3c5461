package io.backpressure.eval;

import java.util.List;
import java.util.Locale;

/**
 * Runs one (workload, configuration, seed) and records what happened: the simulator ({@link
 * SimRunner}) or the real stack ({@link RealRunner}: Temporal, the mock provider over HTTP), both
 * behind the same {@link Recording}, so metrics, summaries and reports are shared.
 */
interface Runner extends AutoCloseable {

  /** The modes accepted by {@code --mode}. */
  List<String> MODES = List.of("sim", "real");

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

  /**
   * The runner for {@code mode}.
   *
   * @throws IllegalArgumentException listing the allowed modes
   */
  static Runner forMode(String mode) {
    String m = mode == null ? "" : mode.strip().toLowerCase(Locale.ROOT);
    if (m.equals("sim")) {
      return new SimRunner();
    }
    if (m.equals("real")) {
      return new RealOptions(null, "default", null, 1, null).runner();
    }
    throw new IllegalArgumentException("unknown --mode '" + mode + "'; allowed: " + String.join(", ", MODES));
  }
}
