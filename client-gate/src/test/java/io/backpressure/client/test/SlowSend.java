package io.backpressure.client.test;

import io.backpressure.core.InMemoryGate;
import io.backpressure.core.ManualClock;
import io.backpressure.core.Policy;
import io.backpressure.core.feedback.ProviderSignal;
import io.backpressure.core.testing.RecordingGate;
import java.time.Duration;

/**
 * What the send-check tests of the client and framework modules share: a gate whose calls must
 * leave within 50 ms of virtual time ({@link #gate}), and a slow send, a hook that the test runs
 * between a call's admission and the moment the check sees it leave ({@link #run}): it lets virtual
 * time pass as a cold client would, and can have the provider ask the gate for a pause meanwhile.
 * For tests only; the hook may run on the client's threads.
 */
public final class SlowSend implements Runnable {

  private final RecordingGate gate;
  private final ManualClock clock;
  private volatile Duration slowness = Duration.ZERO;
  private volatile boolean pauseMeanwhile;

  /** The hook for calls admitted by {@code gate}, whose time is {@code clock}'s. */
  public SlowSend(RecordingGate gate, ManualClock clock) {
    this.gate = gate;
    this.clock = clock;
  }

  /**
   * The policy of {@code target} the send-check tests admit through: 5 requests a second with a
   * burst of 5, 10 000 tokens a second, one priority {@code P1}, and a one-second safe window, so a
   * call must leave within a twentieth of it, 50 ms, of its admission.
   */
  public static Policy policy(String target) {
    return Policy.builder(target)
        .dimension("requests", 5, 5)
        .tokensPerSecond(10_000)
        .priority("P1", 1)
        .safeWindow(Duration.ofSeconds(1))
        .build();
  }

  /** An in-memory gate of {@link #policy} on {@code clock}, recorded. */
  public static RecordingGate gate(String target, ManualClock clock) {
    return new RecordingGate(InMemoryGate.create(policy(target), clock));
  }

  /** The next calls take {@code slowness} of virtual time to leave. */
  public void takes(Duration slowness) {
    this.slowness = slowness;
  }

  /**
   * While the next calls are on their way, the provider asks the gate to pause its requests for two
   * seconds, so a call that leaves late is not admitted again.
   */
  public void providerPausesMeanwhile() {
    this.pauseMeanwhile = true;
  }

  /** Lets the call's slowness pass, and the provider ask for its pause if it does. */
  @Override
  public void run() {
    clock.advance(slowness);
    if (pauseMeanwhile) {
      gate.feedback(null, ProviderSignal.rateLimited("requests", Duration.ofSeconds(2)));
    }
  }
}
