package io.backpressure.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The cold start a fixed-window provider sees: a caller asking as fast as the gate allows, from
 * full buckets, for one minute of virtual time. With caps given per minute the default safe window
 * holds the first minute to the cap; without it the buckets let their burst through on top.
 */
class SafeWindowDefaultTest {
  private static final Duration MINUTE = Duration.ofMinutes(1);

  /** Admissions within the first minute, each released at once with what it debited. */
  private static int admittedInTheFirstMinute(Policy policy) {
    ManualClock clock = new ManualClock();
    InMemoryGate gate = InMemoryGate.create(policy, clock);
    int admitted = 0;
    String booking = null;
    while (clock.nanoTime() < MINUTE.toNanos()) {
      AdmissionRequest request =
          AdmissionRequest.of("acme", "P1", Cost.requests(1)).withBooking(booking);
      Admission admission = gate.admit(request);
      if (admission instanceof Admission.Admitted a) {
        admitted++;
        booking = null;
        gate.release(a.grant(), Cost.requests(1));
      } else if (admission instanceof Admission.Deferred d) {
        booking = d.booking();
        clock.advance(d.retryAfter());
      } else {
        throw new AssertionError("unexpected " + admission);
      }
    }
    return admitted;
  }

  @Test
  void perMinuteCapsHoldTheFirstMinuteToTheCap() {
    Policy.Builder perMinute = Policy.builder("t").requestsPerMinute(600).priority("P1", 1);
    assertThat(admittedInTheFirstMinute(perMinute.build())).isEqualTo(600);
    // The buckets alone: the 10-request burst at once, then one every 100 ms before t = 60 s: 609,
    // nine more than a provider counting that minute allows.
    assertThat(admittedInTheFirstMinute(perMinute.withoutSafeWindow().build())).isEqualTo(609);
  }
}
