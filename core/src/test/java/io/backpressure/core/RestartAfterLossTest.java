package io.backpressure.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * {@link InMemoryGate#createAfterLoss}: a gate rebuilt after its state was lost counts the unknown
 * last period as spent under a safe window (nothing for one period, then the refilled burst), and
 * starts empty without one.
 */
class RestartAfterLossTest {
  private static Policy policy(boolean safeWindow) {
    Policy.Builder b = Policy.builder("restart/model").dimension("requests", 10, 10);
    b.priority("P1", 1);
    return safeWindow ? b.safeWindow(Duration.ofSeconds(1)).build() : b.build();
  }

  /** Calls admitted in {@code [from, to)} ms of virtual time, one asked every 10 ms. */
  private static int admittedBetween(InMemoryGate gate, ManualClock clock, int from, int to) {
    int n = 0;
    for (int ms = from; ms < to; ms += 10) {
      clock.advance(Duration.ofMillis(10));
      if (gate.admit("t" + ms, "P1", Cost.requests(1)) instanceof Admission.Admitted) {
        n++;
      }
    }
    return n;
  }

  @Test
  void underASafeWindow_nothingIsAdmittedForOnePeriod_thenTheRefilledBurst() {
    ManualClock clock = new ManualClock();
    InMemoryGate gate = InMemoryGate.createAfterLoss(policy(true), clock);
    Admission first = gate.admit("t", "P1", Cost.requests(1));
    assertThat(first).isInstanceOf(Admission.Deferred.class);
    assertThat(((Admission.Deferred) first).retryAfter()).isEqualTo(Duration.ofSeconds(1));
    assertThat(admittedBetween(gate, clock, 0, 990)).isZero();
    assertThat(admittedBetween(gate, clock, 990, 1100))
        .as("the burst after the period")
        .isEqualTo(10);
  }

  @Test
  void withoutASafeWindow_itStartsEmpty() {
    ManualClock clock = new ManualClock();
    InMemoryGate afterLoss = InMemoryGate.createAfterLoss(policy(false), clock);
    ManualClock other = new ManualClock();
    InMemoryGate empty = InMemoryGate.createEmpty(policy(false), other);
    assertThat(admittedBetween(afterLoss, clock, 0, 1000))
        .isEqualTo(admittedBetween(empty, other, 0, 1000))
        .isBetween(9, 10);
  }
}
