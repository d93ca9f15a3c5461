package io.backpressure.core.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.backpressure.core.feedback.FeedbackPolicy;
import io.backpressure.core.feedback.FeedbackState;
import io.backpressure.core.feedback.ProviderSignal;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The effective-cap state machine on a virtual clock (µs). Each of the four learning rules has a
 * test that fails when the rule is taken out; the mutation tried is named on the test.
 */
class EffectiveCapsTest {
  private static final List<String> DIMS = List.of("requests", "tokens");
  private static final double[] CAPS = {60, 6_000};
  private static final long SECOND = 1_000_000;
  private static final FeedbackPolicy ONE_SECOND_PERIOD =
      FeedbackPolicy.builder()
          .period(Duration.ofSeconds(1))
          .ramp(0.25, Duration.ofSeconds(10))
          .build();

  private final EffectiveCaps caps = new EffectiveCaps(DIMS, CAPS, ONE_SECOND_PERIOD);

  /** Mutation tried: {@code decrease} left as a no-op (the cap stays at 60 after the 429). */
  @Test
  void a429CutsTheNamedDimensionOnceWithinItsCooldown() {
    caps.observe(0, ProviderSignal.rateLimited("requests", Duration.ofMillis(400)), null);
    assertThat(caps.effective(0, 0)).isEqualTo(48.0);
    assertThat(caps.effective(1, 0)).isEqualTo(6_000.0);

    caps.observe(300_000, ProviderSignal.rateLimited("requests", Duration.ofMillis(100)), null);
    assertThat(caps.effective(0, 300_000))
        .as("a 429 inside the cooldown is an echo")
        .isEqualTo(48.0);
    assertThat(caps.state(300_000).dimensions().get("requests").cooldownSeconds())
        .isCloseTo(0.1, within(1e-9));

    caps.observe(SECOND, ProviderSignal.rateLimited("requests", null), null);
    assertThat(caps.effective(0, SECOND)).isCloseTo(0.8 * (48 + 0.05 * 60 * 0.6), within(1e-9));
    assertThat(caps.state(SECOND).decreases()).isEqualTo(2);
  }

  /** Mutation tried: {@code aimdNow} returning {@code A} unchanged (no growth when quiet). */
  @Test
  void quietTimeGrowsTheCapBackAdditivelyAfterTheCooldownAndNeverAboveTheConfigured() {
    caps.observe(0, ProviderSignal.rateLimited("requests", Duration.ofSeconds(2)), null);
    assertThat(caps.effective(0, SECOND)).as("no growth during the cooldown").isEqualTo(48.0);
    assertThat(caps.effective(0, 2 * SECOND)).isEqualTo(48.0);
    assertThat(caps.effective(0, 3 * SECOND)).isCloseTo(51.0, within(1e-9));
    caps.observe(3 * SECOND, ProviderSignal.ofStatus(200), null);
    assertThat(caps.effective(0, 4 * SECOND)).isCloseTo(54.0, within(1e-9));
    assertThat(caps.effective(0, 60 * SECOND)).isEqualTo(60.0);
    caps.observe(60 * SECOND, ProviderSignal.ofStatus(200), null);
    assertThat(caps.applied(120 * SECOND)).containsExactly(60.0, 6_000.0);
  }

  /** Mutation tried: {@code adopt} not recording {@code limitRate} (the cap stays at 60). */
  @Test
  void aLimitHeaderBelowTheCapIsAdoptedWithHeadroomAndALimitBackUpLiftsItAtOnce() {
    EffectiveCaps perMinute = new EffectiveCaps(DIMS, CAPS, FeedbackPolicy.DEFAULT);
    perMinute.observe(
        0, ProviderSignal.ofStatus(200).withLimit("requests", 2_700.0, null, null), null);
    assertThat(perMinute.effective(0, 0)).isCloseTo(0.95 * 45, within(1e-9));
    assertThat(perMinute.state(0).adoptions()).isEqualTo(1);
    assertThat(perMinute.state(0).dimensions().get("requests").limit()).isEqualTo(45.0);

    perMinute.observe(
        SECOND, ProviderSignal.ofStatus(200).withLimit("requests", 3_600.0, null, null), null);
    assertThat(perMinute.effective(0, SECOND)).isEqualTo(60.0);

    perMinute.observe(
        2 * SECOND, ProviderSignal.ofStatus(200).withLimit("requests", 7_200.0, null, null), null);
    assertThat(perMinute.effective(0, 2 * SECOND)).as("never above C").isEqualTo(60.0);
  }

  @Test
  void a429ThatComesWithTheLowerLimitIsExplainedByItAndCutsNoFurther() {
    caps.observe(
        0,
        ProviderSignal.rateLimited("requests", Duration.ofMillis(300))
            .withLimit("requests", 40.0, null, Duration.ofMillis(300)),
        null);
    assertThat(caps.effective(0, 0)).isCloseTo(38.0, within(1e-9));
    assertThat(caps.state(0).decreases()).isZero();
    assertThat(caps.state(0).dimensions().get("requests").cooldownSeconds())
        .isCloseTo(0.3, within(1e-9));
  }

  /**
   * A provider with a 60/s fixed window that another application spends 18/s of, while this gate's
   * calls use 30/s: the answers' {@code remaining} shows 18/s more than the gate admitted.
   *
   * <p>Mutation tried: {@code adopt} skipping the outside sample (the cap stays at 60).
   */
  @Test
  void outsideTrafficSeenInRemainingIsLeftRoomFor() {
    provider(caps, 30, 18, 0, 20);
    FeedbackState.Dimension requests = caps.state(20 * SECOND).dimensions().get("requests");
    assertThat(requests.outside()).isCloseTo(18, within(1.5));
    assertThat(requests.effective()).isCloseTo(60 - 1.05 * 18, within(1.6));
    assertThat(requests.effective()).isLessThan(60 - 18 + 0.5);
  }

  @Test
  void noOutsideTrafficLeavesTheCapAlone() {
    provider(caps, 55, 0, 0, 20);
    FeedbackState.Dimension requests = caps.state(20 * SECOND).dimensions().get("requests");
    assertThat(requests.outside()).isLessThan(OUTSIDE_NOISE);
    assertThat(requests.effective()).isEqualTo(60.0);
  }

  /**
   * Caps that are right, answers as a real provider gives them: the gate's calls arrive at random
   * (57/s against a 60/s window) and are answered 50–150 ms later, so each answer's {@code
   * remaining} is off from the gate's own count by the calls in flight. The noise stays inside the
   * outside estimate's dead band: the effective cap is the configured one at every answer.
   *
   * <p>Mutation tried: {@code OUTSIDE_ENGAGE} at 0.02 with no hysteresis (the cap dips to 55).
   */
  @Test
  void theNoiseOfCallsInFlightLeavesACorrectCapAlone() {
    double lowest = noisyProvider(caps, 57, 0, 100);
    assertThat(lowest).as("lowest effective cap at any answer").isEqualTo(60.0);
  }

  /**
   * The same noisy answers with an application outside spending 18/s: the cap leaves room for it.
   */
  @Test
  void outsideTrafficIsLeftRoomForThroughTheNoise() {
    noisyProvider(caps, 40, 18, 30);
    FeedbackState.Dimension requests = caps.state(30 * SECOND).dimensions().get("requests");
    assertThat(requests.outside()).isCloseTo(18, within(3.0));
    assertThat(requests.effective()).isLessThan(60 - 18 + 0.5);
  }

  @Test
  void outsideTrafficThatStopsIsForgotten() {
    provider(caps, 30, 18, 0, 20);
    provider(caps, 30, 0, 20, 60);
    assertThat(caps.state(60 * SECOND).dimensions().get("requests").effective()).isEqualTo(60.0);
  }

  @Test
  void a429NamingNoDimensionCutsEveryDimension_andOneNamingTokensOnlyTokens() {
    caps.observe(0, ProviderSignal.ofStatus(429), null);
    assertThat(caps.applied(0)).containsExactly(48.0, 4_800.0);

    EffectiveCaps other = new EffectiveCaps(DIMS, CAPS, ONE_SECOND_PERIOD);
    other.observe(
        0,
        new ProviderSignal(429, Set.of("tokens", "input_tokens"), Map.of(), null, null, 0, false),
        null);
    assertThat(other.applied(0)).containsExactly(60.0, 4_800.0);
  }

  @Test
  void theFloorHoldsUnderRepeated429s() {
    for (int i = 0; i < 40; i++) {
      caps.observe(
          i * 1_000L, ProviderSignal.rateLimited("requests", Duration.ofNanos(1_000)), null);
    }
    assertThat(caps.effective(0, 39_000)).isCloseTo(0.05 * 60, within(1e-9));
  }

  /** Mutation tried: {@code rampMultiplier} returning 1 (admission back to full at once). */
  @Test
  void afterAFailOpenPeriodAdmissionRampsFromAFractionOfTheCap() {
    caps.observe(5 * SECOND, ProviderSignal.resumedAfterOutage(), null);
    assertThat(caps.applied(5 * SECOND)).containsExactly(15.0, 1_500.0);
    assertThat(caps.applied(10 * SECOND)[0]).isCloseTo(37.5, within(1e-9));
    assertThat(caps.applied(15 * SECOND)).containsExactly(60.0, 6_000.0);
    assertThat(caps.state(6 * SECOND).ramps()).isEqualTo(1);
  }

  @Test
  void aBurstOfProviderErrorsInARowIsAnOutageAndItsEndStartsTheRamp() {
    for (int i = 0; i < 4; i++) {
      caps.observe(i, ProviderSignal.ofStatus(503), null);
    }
    caps.observe(10, ProviderSignal.ofStatus(200), null);
    assertThat(caps.state(10).ramps()).as("four errors and a success: no outage").isZero();

    for (int i = 0; i < 5; i++) {
      caps.observe(100 + i, ProviderSignal.ofStatus(i % 2 == 0 ? 500 : 0), null);
    }
    assertThat(caps.state(200).outage()).isTrue();
    assertThat(caps.applied(200))
        .as("the outage itself does not move the caps")
        .containsExactly(60.0, 6_000.0);
    caps.observe(SECOND, ProviderSignal.ofStatus(200), null);
    assertThat(caps.state(SECOND).outage()).isFalse();
    assertThat(caps.applied(SECOND)[0]).isEqualTo(15.0);
  }

  /**
   * Mutations tried: an overload handled as a 429 (the caps are cut), and as a provider error (no
   * hold, no ramp).
   */
  @Test
  void anOverloadHoldsEveryDimensionAndRampsButCutsNoCap() {
    ProviderSignal overloaded = ProviderSignal.ofStatus(ProviderSignal.OVERLOADED);
    for (int i = 0; i < 10; i++) {
      caps.observe(i * SECOND / 2, overloaded, null);
    }
    long last = 9 * SECOND / 2;
    assertThat(caps.effective(0, last)).isEqualTo(60.0);
    assertThat(caps.effective(1, last)).isEqualTo(6_000.0);
    assertThat(caps.spentFrom(0)).isEqualTo(last);
    assertThat(caps.spentUntil(1)).as("held for the policy's cooldown").isEqualTo(last + SECOND);
    assertThat(caps.rampMultiplier(last)).isEqualTo(0.25);
    FeedbackState state = caps.state(last);
    assertThat(state.outage()).as("an overload is not an outage").isFalse();
    assertThat(state.decreases()).isZero();

    caps.observe(last + SECOND, ProviderSignal.ofStatus(200), null);
    assertThat(caps.applied(last + 11 * SECOND)).containsExactly(60.0, 6_000.0);
  }

  /** Mutation tried: a stop handled as a 429 (the named dimension's cap cut). */
  @Test
  void aStopHoldsItsDimensionUntilTheResetItGaveAndCutsNothing() {
    Duration untilMidnight = Duration.ofHours(20);
    ProviderSignal perDay =
        new ProviderSignal(
            429,
            Set.of("requests"),
            Map.of(),
            untilMidnight,
            null,
            0,
            false,
            ProviderSignal.Meaning.STOP_UNTIL_RESET);

    caps.observe(SECOND, perDay, null);

    assertThat(caps.spentUntil(0)).isEqualTo(SECOND + untilMidnight.toNanos() / 1_000);
    assertThat(caps.spentUntil(1)).as("tokens were not named").isEqualTo(Long.MIN_VALUE);
    assertThat(caps.effective(0, SECOND)).isEqualTo(60.0);
    assertThat(caps.state(SECOND).decreases()).isZero();

    ProviderSignal spend =
        new ProviderSignal(
            429, Set.of(), Map.of(), null, null, 0, false, ProviderSignal.Meaning.STOP_UNTIL_RESET);
    caps.observe(2 * SECOND, spend, null);
    assertThat(caps.spentUntil(1))
        .as("a stop that names nothing and gives no reset holds every dimension for STOP_HOLD")
        .isEqualTo(2 * SECOND + EffectiveCaps.STOP_HOLD.toNanos() / 1_000);
  }

  @Test
  void disabledFeedbackLearnsNothing() {
    EffectiveCaps off = new EffectiveCaps(DIMS, CAPS, FeedbackPolicy.DISABLED);
    off.observe(
        0,
        ProviderSignal.rateLimited("requests", null).withLimit("requests", 10.0, 0.0, null),
        null);
    off.observe(1, ProviderSignal.resumedAfterOutage(), null);
    assertThat(off.applied(1)).containsExactly(60.0, 6_000.0);
    assertThat(off.state(1).signals()).isZero();
  }

  @Test
  void aHotUpdateKeepsWhatWasLearned() {
    caps.observe(0, ProviderSignal.rateLimited("requests", Duration.ofSeconds(10)), null);
    caps.reconfigure(new double[] {40, 3_000}, ONE_SECOND_PERIOD);
    assertThat(caps.applied(0)).containsExactly(40.0, 3_000.0);
    caps.reconfigure(new double[] {100, 8_000}, ONE_SECOND_PERIOD);
    assertThat(caps.applied(0))
        .as("the learned 48/s outlives both updates")
        .containsExactly(48.0, 8_000.0);
  }

  @Test
  void ownUseIsTheLargerOfTheDebitAndTheReportedUsage() {
    io.backpressure.core.Grant grant =
        new io.backpressure.core.Grant(
            "g1", "acme", "P1", io.backpressure.core.Cost.requests(1).tokens(1_100), false);
    ProviderSignal used =
        ProviderSignal.ofStatus(200).withUsage(io.backpressure.core.Cost.requests(1).tokens(300));
    assertThat(EffectiveCaps.ownUse(DIMS, grant, used)).containsExactly(1.0, 1_100.0);
    assertThat(EffectiveCaps.ownUse(DIMS, null, used)).containsExactly(1.0, 300.0);
    assertThat(EffectiveCaps.ownUse(DIMS, grant, ProviderSignal.ofStatus(200)))
        .containsExactly(1.0, 1_100.0);
    assertThat(EffectiveCaps.ownUse(DIMS, null, ProviderSignal.ofStatus(200))).isNull();
    io.backpressure.core.Grant open =
        new io.backpressure.core.Grant(
            "open-1", "acme", "P1", io.backpressure.core.Cost.requests(1).tokens(1_100), true);
    assertThat(EffectiveCaps.ownUse(DIMS, open, ProviderSignal.ofStatus(200))).isNull();
  }

  /**
   * One answer of {@link #noisyProvider}: when it arrives (µs), its {@code remaining} and reset
   * (µs).
   */
  private record Answer(long at, double remaining, long reset) {}

  /**
   * Drives {@code caps} for {@code seconds} with a fixed-window provider of 60 requests per 1 s
   * window: the gate's calls arrive at random (exponential gaps, {@code mine}/s on average) and are
   * answered after a uniform 50–150 ms, the outside application's arrive evenly at {@code
   * theirs}/s. The provider counts a call when it arrives and reports the window's limit, what
   * remained then and the time to the window's end; the gate hears it at the answer. Returns the
   * lowest effective cap for requests seen right after any answer.
   */
  private static double noisyProvider(EffectiveCaps caps, double mine, double theirs, int seconds) {
    Random random = new Random(7);
    PriorityQueue<Answer> answers = new PriorityQueue<>(Comparator.comparingLong(Answer::at));
    double lowest = Double.POSITIVE_INFINITY;
    long window = -1;
    int counted = 0;
    long arrived = 0;
    long end = seconds * SECOND;
    while (arrived < end || !answers.isEmpty()) {
      arrived += (long) (-Math.log(1 - random.nextDouble()) * SECOND / mine);
      while (!answers.isEmpty() && (answers.peek().at() <= arrived || arrived >= end)) {
        Answer answer = answers.poll();
        ProviderSignal signal =
            ProviderSignal.ofStatus(200)
                .withLimit(
                    "requests", 60.0, answer.remaining(), Duration.ofNanos(answer.reset() * 1_000));
        caps.observe(answer.at(), signal, new double[] {1, 0});
        lowest = Math.min(lowest, caps.effective(0, answer.at()));
      }
      if (arrived >= end) {
        continue;
      }
      long s = arrived / SECOND;
      if (s != window) {
        window = s;
        counted = 0;
      }
      counted++;
      double outside = Math.floor(theirs * (double) (arrived - s * SECOND) / SECOND);
      double remaining = Math.max(0, 60 - counted - outside);
      answers.add(
          new Answer(
              arrived + 50_000 + random.nextInt(100_001), remaining, (s + 1) * SECOND - arrived));
    }
    return lowest;
  }

  /** Outside samples of a steady run wander by well under this (requests per second). */
  private static final double OUTSIDE_NOISE = 0.5;

  /**
   * Drives {@code caps} with a fixed-window provider of 60 requests per 1 s window, from second
   * {@code from} to {@code to}: the gate's calls arrive evenly at {@code mine}/s and are answered
   * 100 ms later, the outside application's at {@code theirs}/s; each answer reports the window's
   * limit, what remained when the call arrived, and the time to the window's end.
   */
  private static void provider(EffectiveCaps caps, int mine, int theirs, int from, int to) {
    for (int s = from; s < to; s++) {
      for (int i = 0; i < mine; i++) {
        long arrived = s * SECOND + i * SECOND / mine;
        double inWindow = (double) (arrived - s * SECOND) / SECOND;
        double counted = i + 1 + Math.floor(theirs * inWindow);
        long answered = arrived + 100_000;
        ProviderSignal signal =
            ProviderSignal.ofStatus(200)
                .withLimit(
                    "requests",
                    60.0,
                    Math.max(0, 60 - counted),
                    Duration.ofNanos((s + 1) * SECOND * 1_000 - arrived * 1_000));
        caps.observe(answered, signal, new double[] {1, 0});
      }
    }
  }
}
