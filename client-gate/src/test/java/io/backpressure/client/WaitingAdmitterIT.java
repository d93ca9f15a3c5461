package io.backpressure.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.backpressure.core.AdmissionRequest;
import io.backpressure.core.Cost;
import io.backpressure.core.Gate;
import io.backpressure.core.Grant;
import io.backpressure.core.InMemoryGate;
import io.backpressure.core.Policy;
import io.backpressure.core.testing.RecordingGate;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * {@link Admitter#waiting(Duration)} on the wall clock: deferred calls wait on the calling thread
 * with their booking until admitted, and a turn past the budget is refused at once.
 */
class WaitingAdmitterIT {

  private static RecordingGate gate(double requestsPerSecond) {
    return new RecordingGate(
        InMemoryGate.create(
            Policy.builder("openai/gpt-4o")
                .dimension("requests", requestsPerSecond, 1)
                .tokensPerSecond(100_000)
                .priority("P1", 1)
                .build()));
  }

  /** Six calls at 10/s with a burst of one: five of them wait in turn, each keeping its booking. */
  @Test
  void deferredCallsWaitInTurnAndAreAdmitted() {
    RecordingGate gate = gate(10);
    Admitter waiting = Admitter.waiting(Duration.ofSeconds(30));
    long start = System.nanoTime();
    for (int i = 0; i < 6; i++) {
      Grant grant = waiting.admit(gate, AdmissionRequest.of("acme", "P1", Cost.requests(1)));
      waiting.release(gate, grant, Cost.requests(1));
    }
    Duration took = Duration.ofNanos(System.nanoTime() - start);

    // Five waits of about 100 ms each; the upper bound leaves room for a loaded machine.
    assertThat(took).isBetween(Duration.ofMillis(400), Duration.ofSeconds(20));
    assertThat(gate.requests()).hasSizeGreaterThan(6);
    assertThat(gate.requests().stream().filter(r -> r.booking() != null)).isNotEmpty();
    assertThat(gate.outstanding()).isZero();
  }

  /** A turn 10 s away with a 200 ms budget: expired at once, without sleeping out the budget. */
  @Test
  void aTurnPastTheBudgetExpiresAtOnce() {
    Gate gate = gate(0.1);
    Admitter waiting = Admitter.waiting(Duration.ofMillis(200));
    waiting.admit(gate, AdmissionRequest.of("acme", "P1", Cost.requests(1)));

    long start = System.nanoTime();
    assertThatThrownBy(
            () -> waiting.admit(gate, AdmissionRequest.of("acme", "P1", Cost.requests(1))))
        .isInstanceOfSatisfying(
            ExpiredException.class,
            e -> assertThat(e.turnIn()).isGreaterThan(Duration.ofMillis(200)));
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofMillis(190));
  }

  /** An interrupt ends the wait with the deferral it was waiting out, booking included. */
  @Test
  void anInterruptEndsTheWaitWithItsDeferral() {
    Gate gate = gate(0.1);
    Admitter waiting = Admitter.waiting(Duration.ofMinutes(1));
    waiting.admit(gate, AdmissionRequest.of("acme", "P1", Cost.requests(1)));

    Thread.currentThread().interrupt();
    try {
      assertThatThrownBy(
              () -> waiting.admit(gate, AdmissionRequest.of("acme", "P1", Cost.requests(1))))
          .isInstanceOfSatisfying(
              DeferredException.class, e -> assertThat(e.booking()).isNotEmpty());
      assertThat(Thread.currentThread().isInterrupted()).isTrue();
    } finally {
      Thread.interrupted();
    }
  }
}
