package io.backpressure.mock.limit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Caps that change while the limiter runs, and outside traffic on the same caps. */
class DriftingCapsTest {

  private static final long MS = 1_000_000L;
  private static final long SECOND = 1_000_000_000L;

  private static LimitSpec perSecond(WindowModel model, double cap) {
    return LimitSpec.of(model, cap, Duration.ofSeconds(1));
  }

  /** Calls every {@code stepNanos} in {@code [from, to)}; how many were admitted. */
  private static int admittedBetween(UpstreamLimiter limiter, long from, long to, long stepNanos) {
    int admitted = 0;
    for (long t = from; t < to; t += stepNanos) {
      if (limiter.tryAcquire(t, 0).admitted()) {
        admitted++;
      }
    }
    return admitted;
  }

  @Test
  void workedExampleFromTheClassDocumentation() {
    UpstreamLimiter limiter =
        new UpstreamLimiter(
            perSecond(WindowModel.FIXED, 10),
            null,
            false,
            CapSchedule.parse("2:5:-"),
            new OutsideTraffic(4, 0));

    Verdict early = limiter.tryAcquire(600 * MS, 0);
    assertThat(early.admitted()).isTrue();
    assertThat(early.remainingRequests()).isEqualTo(7.0);

    assertThat(limiter.tryAcquire(2_760 * MS, 0).admitted()).isTrue();
    Verdict refused = limiter.tryAcquire(2_800 * MS, 0);
    assertThat(refused.admitted()).isFalse();
    assertThat(refused.retryAfterNanos()).isEqualTo(200 * MS);
    assertThat(limiter.caps()).isEqualTo(new Caps(5.0, null));
    assertThat(limiter.outsideArrived()).isEqualTo(11);
  }

  @Test
  void loweringAFixedWindowCapMidWindowKeepsWhatWasUsed() {
    UpstreamLimiter limiter = new UpstreamLimiter(perSecond(WindowModel.FIXED, 10), null, false);
    assertThat(admittedBetween(limiter, 0, 6 * MS, MS)).isEqualTo(6);

    limiter.setCaps(500 * MS, new Caps(5.0, null));

    Verdict refused = limiter.tryAcquire(500 * MS, 0);
    assertThat(refused.admitted()).isFalse();
    assertThat(refused.retryAfterNanos()).isEqualTo(500 * MS);
    assertThat(admittedBetween(limiter, SECOND, 2 * SECOND, 10 * MS)).isEqualTo(5);
  }

  @Test
  void aBucketLoweredIsCutToTheNewCapacityAndRaisedRefillsAtTheNewRate() {
    UpstreamLimiter limiter = new UpstreamLimiter(perSecond(WindowModel.BUCKET, 10), null, false);
    limiter.setCaps(0, new Caps(4.0, null));
    assertThat(admittedBetween(limiter, 0, 10 * MS, MS)).isEqualTo(4);

    limiter.setCaps(10 * MS, new Caps(100.0, null));
    // Empty at 10 ms; refills at 100/s, so one request every 10 ms from there.
    assertThat(limiter.tryAcquire(19 * MS, 0).admitted()).isFalse();
    assertThat(limiter.tryAcquire(20 * MS, 0).admitted()).isTrue();
  }

  @ParameterizedTest
  @EnumSource(WindowModel.class)
  void aScheduleHalvesAndRestoresTheCapAtItsTimes(WindowModel model) {
    UpstreamLimiter limiter =
        new UpstreamLimiter(
            perSecond(model, 20),
            null,
            false,
            CapSchedule.parse("10:10:-,20:20:-"),
            OutsideTraffic.NONE);

    // Steady demand well above the cap, all along; count whole seconds after each change has
    // settled (a bucket or a sliding log carries the previous second's usage across it).
    admittedBetween(limiter, 0, 5 * SECOND, 5 * MS);
    int before = admittedBetween(limiter, 5 * SECOND, 10 * SECOND, 5 * MS);
    admittedBetween(limiter, 10 * SECOND, 12 * SECOND, 5 * MS);
    int halved = admittedBetween(limiter, 12 * SECOND, 17 * SECOND, 5 * MS);
    admittedBetween(limiter, 17 * SECOND, 22 * SECOND, 5 * MS);
    int restored = admittedBetween(limiter, 22 * SECOND, 27 * SECOND, 5 * MS);

    assertThat(before).isBetween(99, 101);
    assertThat(halved).isBetween(49, 51);
    assertThat(restored).isBetween(99, 101);
  }

  @Test
  void outsideTrafficTakesItsShareOfEveryWindowAndIsCountedApart() {
    UpstreamLimiter limiter =
        new UpstreamLimiter(
            perSecond(WindowModel.FIXED, 10),
            perSecond(WindowModel.FIXED, 1_000),
            false,
            CapSchedule.NONE,
            new OutsideTraffic(3, 300));

    // Outside calls arrive at 1/3, 2/3 and 1 s of each second; the caller asks many times in the
    // last 50 ms of each fixed window (every 1 ms), when the outside calls of that window are in.
    List<Integer> callerPerWindow = new ArrayList<>();
    for (long w = 0; w < 10; w++) {
      callerPerWindow.add(admittedBetween(limiter, w * SECOND + 950 * MS, (w + 1) * SECOND, MS));
    }

    // Window 0 holds the outside calls at 1/3 and 2/3 s; every later one also the one at its start.
    assertThat(callerPerWindow).containsExactly(8, 7, 7, 7, 7, 7, 7, 7, 7, 7);
    assertThat(limiter.outsideArrived()).isEqualTo(29);
    assertThat(limiter.outsideAdmitted()).isEqualTo(29);
    // The headers reveal it: the caller spent no tokens, yet 3 calls of 100 are gone.
    Verdict last = limiter.tryAcquire(9_999 * MS, 10);
    assertThat(last.admitted()).isFalse();
    assertThat(last.remainingTokens()).isEqualTo(1_000 - 3 * 100);
  }

  @Test
  void badCapsNameTheFieldAndChangeNothing() {
    UpstreamLimiter limiter = new UpstreamLimiter(perSecond(WindowModel.FIXED, 10), null, false);

    assertThatThrownBy(() -> limiter.setCaps(0, new Caps(5.0, 100.0)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "tokens_per_s cannot be set: this provider does not cap tokens (start it with a"
                + " tokens cap to change one)");
    assertThatThrownBy(() -> limiter.setCaps(0, new Caps(0.5, null)))
        .hasMessageStartingWith("requests_per_s must allow at least 1 request per period");
    assertThatThrownBy(() -> new Caps(-1.0, null))
        .hasMessage("requests_per_s must be in the range (0, 1e9], but was: -1.0");
    assertThat(limiter.caps()).isEqualTo(new Caps(10.0, null));
    assertThat(admittedBetween(limiter, 0, 20 * MS, MS)).isEqualTo(10);

    assertThatThrownBy(
            () ->
                new UpstreamLimiter(
                    perSecond(WindowModel.FIXED, 10),
                    null,
                    false,
                    CapSchedule.parse("5:-:100"),
                    OutsideTraffic.NONE))
        .hasMessageStartingWith("schedule step 1: tokens_per_s cannot be set");
    assertThatThrownBy(() -> new OutsideTraffic(0, 10))
        .hasMessageStartingWith("outside tokens_per_s needs outside requests_per_s > 0");
  }

  @Test
  void theScheduleTextFormIsParsedAndCheckedStepByStep() {
    assertThat(CapSchedule.parse("40:30:-, 80:60:6000").steps())
        .containsExactly(
            new CapSchedule.Step(40 * SECOND, new Caps(30.0, null)),
            new CapSchedule.Step(80 * SECOND, new Caps(60.0, 6000.0)));
    assertThat(CapSchedule.parse(" ")).isEqualTo(CapSchedule.NONE);
    assertThatThrownBy(() -> CapSchedule.parse("40:30"))
        .hasMessage(
            "schedule step 1 must be AT_S:REQUESTS_PER_S:TOKENS_PER_S (a rate may be '-'), but"
                + " was: '40:30'");
    assertThatThrownBy(() -> CapSchedule.parse("40:30:-,x:1:1"))
        .hasMessage("schedule step 2: at_s must be a number, but was: 'x'");
    assertThatThrownBy(() -> CapSchedule.parse("40:0:-"))
        .hasMessage("schedule step 1: requests_per_s must be in the range (0, 1e9], but was: 0.0");
    assertThatThrownBy(() -> CapSchedule.parse("-1:5:-"))
        .hasMessageStartingWith("schedule step 1: at_s must be in the range [0, 604800]");
    assertThatThrownBy(() -> CapSchedule.parse("40:5:-,20:5:-"))
        .hasMessageStartingWith("schedule steps must be in time order, but step 2 (at_s 20.0)");
    assertThat(List.of(CapSchedule.parse("0:1:-").steps().get(0).atNanos())).containsExactly(0L);
  }
}
