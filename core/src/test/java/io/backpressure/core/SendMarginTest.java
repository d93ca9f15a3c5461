package io.backpressure.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Test;

/**
 * {@link Policy#withSendMargin} and {@link Policy.Builder#sendMargin} (the YAML's {@code
 * send_margin} is tested with {@code PolicyYaml}). The bound itself on a virtual clock: a
 * backlogged gate whose admissions reach the provider after a delay of either nothing or the whole
 * margin (the harshest variation within it). Without the margin a provider window of one second
 * sees more than the cap; with it, never.
 */
class SendMarginTest {
  /**
   * A policy of {@code cap} requests per second (burst one second of cap, at least one) and one
   * class, to be given its safe window.
   */
  private static Policy.Builder requests(double cap) {
    return Policy.builder("margin/model").requestsPerSecond(cap).priority("P1", 1);
  }

  /** The evaluation's cap: 15 requests/s, burst 15, a safe window of the provider's 1 s period. */
  private static final Policy POLICY = requests(15).safeWindow(Duration.ofSeconds(1)).build();

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
    Policy widened = POLICY.withSendMargin(MARGIN);
    for (long seed = 1; seed <= 5; seed++) {
      assertThat(providerPeak(widened, seed)).as("seed %d", seed).isLessThanOrEqualTo(15);
    }
  }

  @Test
  void theWindowGrowsByTheMarginAndItsAllowanceStaysTheCap() {
    Policy widened = POLICY.withSendMargin(Duration.ofMillis(100));
    assertThat(widened.safeWindow()).isEqualTo(Duration.ofMillis(1_100));
    Dimension requests = widened.dimensions().get(0);
    assertThat(requests.capPerSecond()).isCloseTo(15 / 1.1, within(1e-9));
    assertThat(requests.capPerSecond() * 1.1).isCloseTo(15, within(1e-9));
    assertThat(requests.burst()).isEqualTo(15);
    assertThat(widened.withPriorityWeight("P1", 2).safeWindow())
        .isEqualTo(Duration.ofMillis(1_100));
    assertThat(POLICY.withSendMargin(Duration.ZERO)).isSameAs(POLICY);
  }

  @Test
  void everyDimensionIsScaled_andAHotUpdateSetsTheCapAsGiven() {
    Policy policy =
        Policy.builder("margin/model")
            .dimension(Dimension.REQUESTS, 15, 15)
            .dimension(Dimension.TOKENS, 1_500, 3_000)
            .priority("P1", 1)
            .safeWindow(Duration.ofSeconds(1))
            .build();
    Policy widened = policy.withSendMargin(Duration.ofMillis(250));
    assertThat(widened.dimensions())
        .extracting(Dimension::capPerSecond)
        .satisfiesExactly(
            r -> assertThat(r).isCloseTo(12, within(1e-9)),
            t -> assertThat(t).isCloseTo(1_200, within(1e-9)));
    assertThat(widened.dimensions()).extracting(Dimension::burst).containsExactly(15.0, 3_000.0);
    assertThat(widened.withDimension(new Dimension(Dimension.REQUESTS, 15, 15)).dimensions().get(0))
        .isEqualTo(new Dimension(Dimension.REQUESTS, 15, 15));
  }

  @Test
  void aCallOfExactlyTheWindowsAllowanceStillFits() {
    // Without rounding the scaled caps up, 1·1/1.16·1.16 and 15·1/1.14·1.14 come out a hair below 1
    // and 15: the policy would refuse a window that allows no request, or reject a call of 15 as
    // never fitting.
    Policy one =
        requests(1).safeWindow(Duration.ofSeconds(1)).sendMargin(Duration.ofMillis(160)).build();
    assertThat(InMemoryGate.create(one, new ManualClock()).admit(request(Cost.requests(1))))
        .isInstanceOf(Admission.Admitted.class);
    Policy fifteen =
        Policy.builder("t")
            .dimension(Dimension.TOKENS, 15, 15)
            .priority("P1", 1)
            .safeWindow(Duration.ofSeconds(1))
            .sendMargin(Duration.ofMillis(140))
            .build();
    assertThat(
            InMemoryGate.create(fifteen, new ManualClock())
                .admit(request(Cost.of(Dimension.TOKENS, 15))))
        .isInstanceOf(Admission.Admitted.class);
  }

  private static AdmissionRequest request(Cost cost) {
    return AdmissionRequest.of("t", "P1", cost);
  }

  @Test
  void aMarginOutOfRangeOrWithoutASafeWindowIsRefused() {
    assertRefused(
        () -> POLICY.withSendMargin(Duration.ofMillis(-1)),
        "send_margin must be a duration in [0, 1s] (at most safe_window), got -1ms");
    assertRefused(
        () -> POLICY.withSendMargin(Duration.ofMillis(1_001)),
        "send_margin must be a duration in [0, 1s] (at most safe_window), got 1001ms");
    assertRefused(
        () -> POLICY.withSendMargin(null),
        "send_margin must be a duration in [0, 1s] (at most safe_window), got nothing");
    assertThat(POLICY.withSendMargin(Duration.ofSeconds(1)).safeWindow())
        .isEqualTo(Duration.ofSeconds(2));
    Policy noWindow = requests(15).withoutSafeWindow().build();
    assertRefused(
        () -> noWindow.withSendMargin(MARGIN),
        "send_margin needs a safe_window: it widens the safe window (the provider's period), and"
            + " this policy has none; give safe_window, or leave send_margin out");
    assertThat(noWindow.withSendMargin(Duration.ZERO)).isSameAs(noWindow);
    Policy fortyMinutes = requests(1).safeWindow(Duration.ofMinutes(40)).build();
    assertRefused(
        () -> fortyMinutes.withSendMargin(Duration.ofMinutes(21)),
        "send_margin must be a duration in [0, 1200s] (safe_window plus send_margin at most 1h),"
            + " got 1260s");
  }

  @Test
  void theBuilderAppliesTheMarginToTheResolvedSafeWindow() {
    Policy perMinute =
        Policy.builder("t")
            .requestsPerMinute(600)
            .priority("P1", 1)
            .sendMargin(Duration.ofSeconds(1))
            .build();
    assertThat(perMinute.safeWindow()).isEqualTo(Duration.ofSeconds(61));
    assertThat(perMinute.dimensions().get(0).capPerSecond()).isCloseTo(600 / 61.0, within(1e-9));
    assertThat(perMinute.dimensions().get(0).burst()).isEqualTo(10);
    Policy.Builder oneSecond = requests(15).safeWindow(Duration.ofSeconds(1));
    Policy plain = oneSecond.build();
    assertThat(oneSecond.sendMargin(Duration.ofMillis(100)).build())
        .isEqualTo(plain.withSendMargin(Duration.ofMillis(100)));
  }

  @Test
  void theBuilderRefusesANegativeMarginAtOnceAndTheRestAtBuild() {
    Policy.Builder builder = requests(15);
    assertRefused(
        () -> builder.sendMargin(Duration.ofMillis(-100)),
        "send_margin must be a duration in [0, safe_window], got -100ms");
    assertRefused(
        () -> builder.sendMargin(null),
        "send_margin must be a duration in [0, safe_window], got nothing");
    Policy.Builder perSecond = builder.sendMargin(Duration.ofMillis(150));
    assertRefused(perSecond::build, "send_margin needs a safe_window");
    assertRefused(
        () -> perSecond.safeWindow(Duration.ofMillis(100)).build(),
        "send_margin must be a duration in [0, 100ms] (at most safe_window), got 150ms");
    assertThat(perSecond.safeWindow(Duration.ofSeconds(1)).build().safeWindow())
        .isEqualTo(Duration.ofMillis(1_150));
  }

  /** {@code call} throws an {@link InvalidPolicyException} naming {@code send_margin}. */
  private static void assertRefused(ThrowingCallable call, String message) {
    assertThatThrownBy(call)
        .isInstanceOfSatisfying(
            InvalidPolicyException.class, e -> assertThat(e.field()).isEqualTo("send_margin"))
        .hasMessageStartingWith(message);
  }
}
