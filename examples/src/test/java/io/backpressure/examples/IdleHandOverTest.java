package io.backpressure.examples;

import static org.assertj.core.api.Assertions.assertThat;

import io.backpressure.core.Admission;
import io.backpressure.core.AdmissionRequest;
import io.backpressure.core.Cost;
import io.backpressure.core.Gate;
import io.backpressure.core.InMemoryGate;
import io.backpressure.core.ManualClock;
import io.backpressure.core.Policy;
import java.time.Duration;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/**
 * How soon a class that stops calling hands its share to a class that still wants more, for the
 * default {@code idle_ttl} and a short one (the figures in docs/deploying.md): two equal classes
 * each try one call per millisecond against 100 requests/s, and P1 stops at t = 5 s.
 */
class IdleHandOverTest {
  private static final int STOP_SECOND = 5;

  @Test
  void onceTheIdleQueueExpiresTheOtherClassGetsTheWholeCap() {
    for (Duration idleTtl : new Duration[] {Duration.ofSeconds(10), Duration.ofSeconds(1)}) {
      int[] p2 = p2AdmittedPerSecond(idleTtl, 20);
      System.out.println(
          "idle_ttl " + idleTtl.toSeconds() + " s, P2 admitted per second: " + Arrays.toString(p2));

      assertThat(p2[2]).as("both classes busy: half the cap each").isBetween(49, 51);
      int expired = STOP_SECOND + (int) idleTtl.toSeconds() + 1;
      assertThat(Arrays.stream(p2, expired, p2.length).min().orElseThrow())
          .as("once P1's queue has expired")
          .isGreaterThanOrEqualTo(99);
    }
  }

  private static int[] p2AdmittedPerSecond(Duration idleTtl, int seconds) {
    ManualClock clock = new ManualClock();
    Policy policy =
        Policy.builder("openai/gpt-4o")
            .requestsPerSecond(100)
            .priority("P1", 0.5)
            .priority("P2", 0.5)
            .idleTtl(idleTtl)
            .build();
    Gate gate = InMemoryGate.create(policy, clock);
    String[] bookings = new String[2];
    int[] admitted = new int[seconds];
    for (int ms = 0; ms < seconds * 1_000; ms++) {
      for (int k = 0; k < 2; k++) {
        if (k == 0 && ms >= STOP_SECOND * 1_000) {
          continue;
        }
        AdmissionRequest request =
            AdmissionRequest.of("tenant-" + k, "P" + (k + 1), Cost.requests(1));
        Admission answer =
            gate.admit(bookings[k] == null ? request : request.withBooking(bookings[k]));
        if (answer instanceof Admission.Admitted a) {
          bookings[k] = null;
          gate.release(a.grant(), Cost.requests(1));
          admitted[ms / 1_000] += k;
        } else if (answer instanceof Admission.Deferred d) {
          bookings[k] = d.booking();
        }
      }
      clock.advance(Duration.ofMillis(1));
    }
    return admitted;
  }
}
