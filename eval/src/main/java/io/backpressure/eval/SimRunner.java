package io.backpressure.eval;

/** The deterministic discrete-event runner ({@code --mode sim}). Stateless and thread-safe. */
final class SimRunner implements Runner {

  @Override
  public String mode() {
    return "sim";
  }

  @Override
  public Recording run(Workload workload, Configuration configuration, long seed) {
    return new Simulation(workload, configuration, seed).run();
  }
}
