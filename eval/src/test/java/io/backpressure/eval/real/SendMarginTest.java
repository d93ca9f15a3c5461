package io.backpressure.eval.real;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.backpressure.core.Admission;
import io.backpressure.core.AdmissionRequest;
import io.backpressure.core.Cost;
import io.backpressure.core.Dimension;
import io.backpressure.core.InMemoryGate;
import io.backpressure.core.ManualClock;
import io.backpressure.core.Policy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * {@link SendMargin}: a backlogged gate on a virtual clock, each admission reaching the provider
 * after a delay of either nothing or the whole margin (the harshest variation within it). Without
 * the margin a provider window of one second sees more than the cap; with it, never.
 */
class SendMarginTest {
  private static final Policy POLICY =
      Policy.builder("margin/model")
          .dimension(Dimension.REQUESTS, 15, 15)
          .priority("P1", 1)
          .safeWindow(Duration.ofSeconds(1))
          .build();

  private static final Duration MARGIN = Duration.ofMillis(200);

  /**
   * The most arrivals in any window of one second, over 20 s of 20 callers that keep the gate
   * backlogged: each asks again at once after an admission, and a deferred one returns with its
   * booking after the gate's Δ (on a 1 ms tick).
   */
  private static int providerPeak(Policy policy, long seed) {
    ManualClock clock = new ManualClock();
    InMemoryGate gate = InMemoryGate.create(policy, clock);
    SplittableRandom random = new SplittableRandom(seed);
    List<Long> arrivals = new ArrayList<>();
    int callers = 20;
    long[] nextTry = new long[callers];
    String[] booking = new String[callers];
    for (long now = 0; now < 20_000_000_000L; now += 1_000_000L) {
      for (int c = 0; c < callers; c++) {
        while (nextTry[c] <= now) {
          AdmissionRequest request = AdmissionRequest.of("t" + c % 4, "P1", Cost.requests(1));
          Admission answer =
              gate.admit(booking[c] == null ? request : request.withBooking(booking[c]));
          if (answer instanceof Admission.Deferred d) {
            booking[c] = d.booking();
            nextTry[c] = now + Math.max(1_000_000L, d.retryAfter().toNanos());
          } else {
            booking[c] = null;
            if (answer instanceof Admission.Admitted) {
              arrivals.add(now + (random.nextBoolean() ? MARGIN.toNanos() : 0));
            }
          }
        }
      }
      clock.advance(Duration.ofMillis(1));
    }
    long[] sorted = arrivals.stream().mapToLong(Long::longValue).sorted().toArray();
    int best = 0;
    int head = 0;
    for (int tail = 0; tail < sorted.length; tail++) {
      while (head < sorted.length && sorted[head] < sorted[tail] + 1_000_000_000L) {
        head++;
      }
      best = Math.max(best, head - tail);
    }
    return best;
  }

  @Test
  void withoutTheMargin_sendDelayVariationPutsMoreThanTheCapInAProviderWindow() {
    assertThat(providerPeak(POLICY, 7)).isGreaterThan(15);
  }

  @Test
  void withTheMargin_noProviderWindowSeesMoreThanTheCap() {
    Policy widened = SendMargin.widen(POLICY, MARGIN);
    for (long seed = 1; seed <= 5; seed++) {
      assertThat(providerPeak(widened, seed)).as("seed %d", seed).isLessThanOrEqualTo(15);
    }
  }

  @Test
  void theWindowGrowsByTheMarginAndItsAllowanceStaysTheCap() {
    Policy widened = SendMargin.widen(POLICY, Duration.ofMillis(100));
    assertThat(widened.safeWindow()).isEqualTo(Duration.ofMillis(1_100));
    Dimension requests = widened.dimensions().get(0);
    assertThat(requests.capPerSecond()).isCloseTo(15 / 1.1, within(1e-9));
    assertThat(requests.capPerSecond() * 1.1).isCloseTo(15, within(1e-9));
    assertThat(requests.burst()).isEqualTo(15);
    assertThat(SendMargin.widen(POLICY, Duration.ZERO)).isSameAs(POLICY);
  }

  @Test
  void aMarginOutOfRangeOrWithoutASafeWindowIsRefused() {
    assertThatThrownBy(() -> SendMargin.widen(POLICY, Duration.ofMillis(-1)))
        .hasMessage("--send-margin-ms must be in [0, 1000], got -1");
    assertThatThrownBy(() -> SendMargin.widen(POLICY, Duration.ofMillis(1_001)))
        .hasMessage("--send-margin-ms must be in [0, 1000], got 1001");
    Policy noWindow =
        Policy.builder("margin/model")
            .dimension(Dimension.REQUESTS, 15, 15)
            .priority("P1", 1)
            .withoutSafeWindow()
            .build();
    assertThatThrownBy(() -> SendMargin.widen(noWindow, MARGIN))
        .hasMessageContaining("--send-margin-ms needs a configuration with the safe window");
  }
}
