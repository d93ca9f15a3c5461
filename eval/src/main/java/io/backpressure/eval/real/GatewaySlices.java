package io.backpressure.eval.real;

import io.backpressure.eval.sim.GatewayConfiguration;

/**
 * The {@code gateway} configuration's proxy state: per tenant a static slice of requests (and
 * tokens) per fixed 60 s window aligned to the run's origin, as the simulator's {@code
 * GatewayConfiguration} models a LiteLLM-style client-side limiter. A call whose slice is
 * exhausted waits in the proxy (on the caller's slot) for the next window; tokens are charged after
 * the reply. Thread-safe.
 */
public final class GatewaySlices {
  private static final long WINDOW_NANOS = GatewayConfiguration.WINDOW_NANOS;
  private final Ledger ledger;
  private final double[] requestSlice;
  private final double[] tokenSlice;
  private final long[] window;
  private final double[] requestsUsed;
  private final double[] tokensUsed;

  /**
   * @param requestSlice per tenant, requests per window ({@code +∞} when requests are not capped)
   * @param tokenSlice per tenant, tokens per window ({@code +∞} when tokens are not capped)
   */
  public GatewaySlices(Ledger ledger, double[] requestSlice, double[] tokenSlice) {
    this.ledger = ledger;
    this.requestSlice = requestSlice.clone();
    this.tokenSlice = tokenSlice.clone();
    int n = requestSlice.length;
    this.window = new long[n];
    this.requestsUsed = new double[n];
    this.tokensUsed = new double[n];
  }

  /** Waits until tenant {@code queue}'s slice has room, then takes one request from it. */
  void acquire(int queue) throws InterruptedException {
    while (true) {
      long wait;
      synchronized (this) {
        long now = ledger.now();
        roll(queue, now);
        if (requestsUsed[queue] + 1 <= requestSlice[queue] && tokensUsed[queue] < tokenSlice[queue]) {
          requestsUsed[queue] += 1;
          return;
        }
        wait = (Math.floorDiv(now, WINDOW_NANOS) + 1) * WINDOW_NANOS - now;
      }
      Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
    }
  }

  /** Charges {@code tokens} the provider reported to tenant {@code queue}'s slice. */
  synchronized void charge(int queue, double tokens) {
    roll(queue, ledger.now());
    tokensUsed[queue] += tokens;
  }

  private void roll(int queue, long now) {
    long current = Math.floorDiv(now, WINDOW_NANOS);
    if (current != window[queue]) {
      window[queue] = current;
      requestsUsed[queue] = 0;
      tokensUsed[queue] = 0;
    }
  }
}
