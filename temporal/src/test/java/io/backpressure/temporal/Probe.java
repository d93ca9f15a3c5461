package io.backpressure.temporal;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * Counts the activities running right now on a worker (its occupied slots), and their deferrals.
 */
final class Probe {
  private final AtomicInteger deferrals = new AtomicInteger();
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

  void deferred() {
    deferrals.incrementAndGet();
  }

  /** Attempts that ended with a deferral: each costs a round trip through the server. */
  int deferrals() {
    return deferrals.get();
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
