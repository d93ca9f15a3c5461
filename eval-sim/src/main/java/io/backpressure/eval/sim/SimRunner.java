package io.backpressure.eval.sim;

import io.backpressure.eval.measure.Recording;
import io.backpressure.eval.workload.Workload;

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
}
