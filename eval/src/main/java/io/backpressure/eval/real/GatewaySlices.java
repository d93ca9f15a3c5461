package io.backpressure.eval.real;

import io.backpressure.eval.sim.GatewayConfiguration;

/**
 * The {@code gateway} configuration's proxy on the real stack: the simulator's accounting ({@link
 * GatewayConfiguration.Slices}) on the run's clock, shared by the worker's activity threads. A call
 * whose slice is exhausted waits in the proxy (on the caller's slot) for the next window; tokens
 * are charged after the reply. Thread-safe.
 */
public final class GatewaySlices {
  private final Ledger ledger;
  private final GatewayConfiguration.Slices slices;

  /**
   * @param requestSlice per tenant, requests per window ({@code +∞} when requests are not capped)
   * @param tokenSlice per tenant, tokens per window ({@code +∞} when tokens are not capped)
   */
  public GatewaySlices(Ledger ledger, double[] requestSlice, double[] tokenSlice) {
    this.ledger = ledger;
    this.slices = new GatewayConfiguration.Slices(requestSlice, tokenSlice);
  }

  /** Waits until tenant {@code queue}'s slice has room, then takes one request from it. */
  void acquire(int queue) throws InterruptedException {
    while (true) {
      long wait;
      synchronized (this) {
        long now = ledger.now();
        if (slices.tryTake(queue, now)) {
          return;
        }
        wait = GatewayConfiguration.Slices.untilNextWindow(now);
      }
      Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
    }
  }

  /** Charges {@code tokens} the provider reported to tenant {@code queue}'s slice. */
  synchronized void charge(int queue, double tokens) {
    slices.charge(queue, tokens, ledger.now());
  }
}
