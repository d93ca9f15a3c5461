package io.backpressure.temporal;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * Counts the activities running right now on a worker (its occupied slots), and their deferrals.
 */
final class Probe {
  private final AtomicInteger deferrals = new AtomicInteger();
  private final AtomicInteger redeferrals = new AtomicInteger();
  private final AtomicInteger running = new AtomicInteger();
  private final AtomicInteger maxRunning = new AtomicInteger();
  private final AtomicInteger started = new AtomicInteger();

  void enter() {
    started.incrementAndGet();
    maxRunning.accumulateAndGet(running.incrementAndGet(), Math::max);
  }

  void exit() {
    running.decrementAndGet();
  }

  /**
   * @param rerun whether the deferred attempt was itself the re-run of an earlier deferral
   */
  void deferred(boolean rerun) {
    deferrals.incrementAndGet();
    if (rerun) {
      redeferrals.incrementAndGet();
    }
  }

  /** Attempts that ended with a deferral: each costs a round trip through the server. */
  int deferrals() {
    return deferrals.get();
  }

  /** Deferrals of re-runs: a call woken by its deferral and deferred once more. */
  int redeferrals() {
    return redeferrals.get();
  }

  int running() {
    return running.get();
  }

  int maxRunning() {
    return maxRunning.get();
  }

  int started() {
    return started.get();
  }
}
