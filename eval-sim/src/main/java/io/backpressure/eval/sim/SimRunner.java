package io.backpressure.eval.sim;

import io.backpressure.eval.measure.Recording;
import io.backpressure.eval.workload.Workload;
import java.util.function.IntConsumer;

/** The deterministic discrete-event runner ({@code --mode sim}). Stateless and thread-safe. */
public final class SimRunner implements Runner {

  @Override
  public String mode() {
    return "sim";
  }

  @Override
  public Recording run(Workload workload, Configuration configuration, long seed) {
    return new Simulation(workload, configuration, seed).run();
  }

  /**
   * As {@link #run}, telling {@code progress} each whole percent of the run's virtual time reached
   * (1 to 100, in order, on the calling thread).
   */
  public Recording run(
      Workload workload, Configuration configuration, long seed, IntConsumer progress) {
    return new Simulation(workload, configuration, seed).run(progress);
  }
}
