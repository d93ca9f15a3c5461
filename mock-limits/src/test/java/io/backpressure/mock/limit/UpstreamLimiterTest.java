package io.backpressure.mock.limit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class UpstreamLimiterTest {

  private static final long MS = 1_000_000L;
  private static final long SECOND = 1_000_000_000L;

  /** One call of a replayed trace: when, how many tokens, and what the limiter said. */
  private record Call(long at, double tokens, Verdict verdict) {}

  @Test
  void workedExampleFromTheClassDocumentation() {
    UpstreamLimiter limiter = limiter(WindowModel.FIXED, 2, 100, false);

    Verdict first = limiter.tryAcquire(200 * MS, 60);
    assertThat(first.admitted()).isTrue();
    assertThat(first.boundDimension()).isNull();
    assertThat(first.remainingRequests()).isEqualTo(1.0);
    assertThat(first.remainingTokens()).isEqualTo(40.0);
    assertThat(first.resetRequestsNanos()).isEqualTo(800 * MS);

    Verdict second = limiter.tryAcquire(400 * MS, 50);
    assertThat(second.admitted()).isFalse();
    assertThat(second.boundDimension()).isEqualTo("tokens");
    assertThat(second.retryAfterNanos()).isEqualTo(600 * MS);
    assertThat(second.remainingTokens()).isEqualTo(40.0);

    Verdict third = limiter.tryAcquire(500 * MS, 30);
    assertThat(third.admitted()).isTrue();
    assertThat(third.remainingRequests()).isZero();
    assertThat(third.remainingTokens()).isEqualTo(10.0);

    Verdict fourth = limiter.tryAcquire(700 * MS, 1);
    assertThat(fourth.admitted()).isFalse();
    assertThat(fourth.boundDimension()).isEqualTo("requests");
    assertThat(fourth.retryAfterNanos()).isEqualTo(300 * MS);
  }

  @Test
  void fixedWindowsAdmitAtMostTheCapPerAlignedWindowAndAllOfItUnderExcessDemand() {
    int cap = 7;
    List<Call> calls =
        replay(limiter(WindowModel.FIXED, cap, Double.NaN, false), randomTrace(1, 3_000, 3 * MS));
    long windows = calls.get(calls.size() - 1).at() / SECOND + 1;
    for (long w = 0; w < windows; w++) {
      long start = w * SECOND;
      long admitted =
          calls.stream()
              .filter(c -> c.at() >= start && c.at() < start + SECOND && c.verdict().admitted())
              .count();
      long offered = calls.stream().filter(c -> c.at() >= start && c.at() < start + SECOND).count();
      assertThat(admitted).as("window %d", w).isEqualTo(Math.min(cap, offered));
    }
  }

  @Test
  void fixedWindowsAreAlignedToZeroSoTwiceTheCapCanPassAcrossABoundary() {
    assertThat(admittedAroundOneSecond(WindowModel.FIXED, 3)).isEqualTo(6);
  }

  @Test
  void slidingLogAdmitsAtMostTheCapInEveryWindowOfOnePeriod() {
    int cap = 9;
    List<Call> calls =
        replay(limiter(WindowModel.SLIDING, cap, Double.NaN, false), randomTrace(2, 3_000, 2 * MS));
    List<Long> admitted = admittedTimes(calls);
    for (int i = 0; i < admitted.size(); i++) {
      long start = admitted.get(i);
      long inWindow = admitted.stream().filter(t -> t >= start && t < start + SECOND).count();
      assertThat(inWindow).as("window starting at %d", start).isLessThanOrEqualTo(cap);
    }
    assertThat(admitted.size()).isGreaterThanOrEqualTo(cap * 5);
  }

  @Test
  void slidingLogRefusesTheBoundaryBurstThatAFixedWindowLetsThrough() {
    assertThat(admittedAroundOneSecond(WindowModel.SLIDING, 3)).isEqualTo(3);
  }

  /**
   * Requests admitted under {@code cap} per second from one request per ms over [0.99 s, 1.01 s).
   */
  private static int admittedAroundOneSecond(WindowModel model, double cap) {
    UpstreamLimiter limiter = limiter(model, cap, Double.NaN, false);
    int admitted = 0;
    for (long t = 990 * MS; t < 1_010 * MS; t += MS) {
      admitted += limiter.tryAcquire(t, 0).admitted() ? 1 : 0;
    }
    return admitted;
  }

  @Test
  void slidingLogOnTokensWaitsForJustEnoughToExpire() {
    UpstreamLimiter limiter = limiter(WindowModel.SLIDING, Double.NaN, 100, false);
    assertThat(limiter.tryAcquire(0, 50).admitted()).isTrue();
    assertThat(limiter.tryAcquire(100 * MS, 30).admitted()).isTrue();
    assertThat(limiter.tryAcquire(200 * MS, 20).admitted()).isTrue();

    Verdict refused = limiter.tryAcquire(300 * MS, 40);
    // 40 more needs 40 to expire: the 50 at t=0 leaves the window at t=1s.
    assertThat(refused.boundDimension()).isEqualTo("tokens");
    assertThat(refused.retryAfterNanos()).isEqualTo(700 * MS);
    assertThat(refused.resetTokensNanos()).isEqualTo(900 * MS);

    Verdict small = limiter.tryAcquire(300 * MS, 0);
    assertThat(small.admitted()).isTrue();
    assertThat(limiter.tryAcquire(SECOND, 40).admitted()).isTrue();
  }

  @Test
  void bucketAdmitsAtMostItsBurstPlusRateTimesElapsedTime() {
    double cap = 5;
    List<Call> calls =
        replay(limiter(WindowModel.BUCKET, cap, Double.NaN, false), randomTrace(3, 3_000, 2 * MS));
    List<Long> admitted = admittedTimes(calls);
    for (int i = 0; i < admitted.size(); i++) {
      for (int j = i; j < admitted.size(); j++) {
        double elapsedSeconds = (admitted.get(j) - admitted.get(i)) / (double) SECOND;
        assertThat(j - i + 1.0).isLessThanOrEqualTo(cap + cap * elapsedSeconds + 1e-9);
      }
    }
    double span = (calls.get(calls.size() - 1).at() - calls.get(0).at()) / (double) SECOND;
    assertThat((double) admitted.size()).isGreaterThanOrEqualTo(cap * span);
  }

  @Test
  void bucketStartsFullAndRefillsAtItsRate() {
    UpstreamLimiter limiter = limiter(WindowModel.BUCKET, 10, Double.NaN, false);
    for (int i = 0; i < 10; i++) {
      assertThat(limiter.tryAcquire(0, 0).admitted()).isTrue();
    }
    Verdict empty = limiter.tryAcquire(0, 0);
    assertThat(empty.admitted()).isFalse();
    assertThat(empty.retryAfterNanos()).isEqualTo(100 * MS);
    assertThat(empty.resetRequestsNanos()).isEqualTo(SECOND);
    assertThat(limiter.tryAcquire(99 * MS, 0).admitted()).isFalse();
    assertThat(limiter.tryAcquire(100 * MS, 0).admitted()).isTrue();
    assertThat(limiter.tryAcquire(450 * MS, 0).remainingRequests()).isEqualTo(2.5, within());
  }

  @ParameterizedTest
  @EnumSource(WindowModel.class)
  void retryAfterIsExactlyTheEarliestInstantTheSameCallIsAdmitted(WindowModel model) {
    List<long[]> trace = randomTrace(4, 400, 4 * MS);
    List<Call> calls = replay(limiter(model, 6, 500, false), trace);
    int checked = 0;
    for (int i = 0; i < calls.size() && checked < 60; i++) {
      Call call = calls.get(i);
      if (call.verdict().admitted() || call.verdict().neverFits()) {
        continue;
      }
      long retryAt = call.at() + call.verdict().retryAfterNanos();
      UpstreamLimiter early = limiter(model, 6, 500, false);
      replay(early, trace.subList(0, i));
      assertThat(early.tryAcquire(retryAt - 1, call.tokens()).admitted())
          .as("%s call %d one nanosecond early", model, i)
          .isFalse();
      UpstreamLimiter onTime = limiter(model, 6, 500, false);
      replay(onTime, trace.subList(0, i));
      assertThat(onTime.tryAcquire(retryAt, call.tokens()).admitted())
          .as("%s call %d at its retry-after", model, i)
          .isTrue();
      checked++;
    }
    assertThat(checked).isGreaterThan(20);
  }

  @ParameterizedTest
  @EnumSource(WindowModel.class)
  void bothDimensionsBindIndependently(WindowModel model) {
    UpstreamLimiter requestBound = limiter(model, 3, 1_000, false);
    for (int i = 0; i < 3; i++) {
      assertThat(requestBound.tryAcquire(0, 10).admitted()).isTrue();
    }
    Verdict byRequests = requestBound.tryAcquire(0, 10);
    assertThat(byRequests.admitted()).isFalse();
    assertThat(byRequests.boundDimension()).isEqualTo("requests");
    assertThat(byRequests.remainingTokens()).isEqualTo(970.0);

    UpstreamLimiter tokenBound = limiter(model, 3, 1_000, false);
    assertThat(tokenBound.tryAcquire(0, 900).admitted()).isTrue();
    Verdict byTokens = tokenBound.tryAcquire(0, 200);
    assertThat(byTokens.admitted()).isFalse();
    assertThat(byTokens.boundDimension()).isEqualTo("tokens");
    assertThat(byTokens.remainingRequests()).isEqualTo(2.0);
    assertThat(tokenBound.tryAcquire(0, 100).admitted()).isTrue();
  }

  @Test
  void whenBothDimensionsAreShortRequestsAreNamed() {
    UpstreamLimiter limiter = limiter(WindowModel.FIXED, 1, 100, false);
    assertThat(limiter.tryAcquire(0, 100).admitted()).isTrue();
    assertThat(limiter.tryAcquire(0, 100).boundDimension()).isEqualTo("requests");
  }

  @Test
  void aCallLargerThanTheTokenCapCanNeverFitAndNamesTokens() {
    UpstreamLimiter limiter = limiter(WindowModel.FIXED, 1, 100, false);
    assertThat(limiter.tryAcquire(0, 1).admitted()).isTrue();
    Verdict verdict = limiter.tryAcquire(0, 101);
    assertThat(verdict.neverFits()).isTrue();
    assertThat(verdict.boundDimension()).isEqualTo("tokens");
    assertThat(verdict.retryAfterNanos()).isEqualTo(Verdict.NEVER);
  }

  @Test
  void rejectedCallsCountOnlyWhenConfigured() {
    UpstreamLimiter free = limiter(WindowModel.SLIDING, 2, Double.NaN, false);
    UpstreamLimiter counted = limiter(WindowModel.SLIDING, 2, Double.NaN, true);
    for (UpstreamLimiter limiter : List.of(free, counted)) {
      limiter.tryAcquire(0, 0);
      limiter.tryAcquire(0, 0);
      limiter.tryAcquire(500 * MS, 0);
      limiter.tryAcquire(500 * MS, 0);
    }
    assertThat(free.tryAcquire(SECOND, 0).admitted()).isTrue();
    Verdict stillBlocked = counted.tryAcquire(SECOND, 0);
    assertThat(stillBlocked.admitted()).isFalse();
    // The two rejected calls at 0.5 s fill the window until 1.5 s; this one counts too.
    assertThat(stillBlocked.retryAfterNanos()).isEqualTo(500 * MS);
    assertThat(counted.tryAcquire(1_500 * MS, 0).admitted()).isTrue();
    assertThat(counted.rejectedCount()).isTrue();
  }

  @Test
  void uncappedDimensionsReportInfiniteRemainingAndNoReset() {
    UpstreamLimiter limiter = new UpstreamLimiter(null, null, false);
    Verdict verdict = limiter.tryAcquire(0, 1e9);
    assertThat(verdict.admitted()).isTrue();
    assertThat(verdict.remainingRequests()).isInfinite();
    assertThat(verdict.remainingTokens()).isInfinite();
    assertThat(verdict.resetTokensNanos()).isZero();
  }

  @Test
  void slidingLogKeepsOneEntryPerInstantAndForgetsExpiredOnes() {
    SlidingLog log = new SlidingLog(1_000, SECOND);
    for (int i = 0; i < 500; i++) {
      long now = (i / 10) * MS;
      log.advance(now);
      log.debit(now, 1);
    }
    assertThat(log.entries()).isEqualTo(50);
    log.advance(2 * SECOND);
    assertThat(log.entries()).isZero();
    assertThat(log.remaining()).isEqualTo(1_000.0);
  }

  /**
   * 80 of 100 tokens debited at 0, 50 of them given back at 0.1 s: a call of 60 at 0.2 s fits only
   * because of the refund (without it: 20 left in a window or log, 40 in the bucket).
   */
  @ParameterizedTest
  @EnumSource(WindowModel.class)
  void aRefundGivesBackWhatAnAdmittedChargeDidNotUse(WindowModel model) {
    UpstreamLimiter limiter = limiter(model, Double.NaN, 100, false);
    assertThat(limiter.tryAcquire(0, 80).admitted()).isTrue();

    limiter.refundTokens(100 * MS, 0, 50);

    assertThat(limiter.tryAcquire(200 * MS, 60).admitted()).isTrue();
  }

  /** A sliding log gives back at most what the entry at that instant holds. */
  @Test
  void aSlidingLogRefundsFromTheEntryOfItsInstantOnly() {
    UpstreamLimiter limiter = limiter(WindowModel.SLIDING, Double.NaN, 100, false);
    limiter.tryAcquire(0, 30);
    limiter.tryAcquire(10 * MS, 60);

    limiter.refundTokens(20 * MS, 0, 30);

    Verdict next = limiter.tryAcquire(30 * MS, 40);
    assertThat(next.admitted()).isTrue();
    assertThat(next.remainingTokens()).isZero();
    // the 60 of 10 ms expire at 1.01 s, not earlier: the refund did not move them
    assertThat(limiter.tryAcquire(1_005 * MS, 61).admitted()).isFalse();
    assertThat(limiter.tryAcquire(1_011 * MS, 60).admitted()).isTrue();
  }

  /** A charge whose fixed window has ended is gone: its refund gives nothing to the new window. */
  @Test
  void aRefundOfAnExpiredChargeChangesNothing() {
    UpstreamLimiter limiter = limiter(WindowModel.FIXED, Double.NaN, 100, false);
    limiter.tryAcquire(900 * MS, 80);
    assertThat(limiter.tryAcquire(1_100 * MS, 90).remainingTokens()).isEqualTo(10.0);

    limiter.refundTokens(1_200 * MS, 900 * MS, 50);

    assertThat(limiter.tryAcquire(1_300 * MS, 11).admitted()).isFalse();
  }

  @Test
  void aBadRefundIsRefusedWithTheFieldNamed() {
    UpstreamLimiter limiter = limiter(WindowModel.FIXED, Double.NaN, 100, false);
    limiter.tryAcquire(SECOND, 80);
    assertThatThrownBy(() -> limiter.refundTokens(SECOND, SECOND, -1))
        .hasMessage("tokens must be finite and >= 0, but was: -1.0");
    assertThatThrownBy(() -> limiter.refundTokens(SECOND, 2 * SECOND, 1))
        .hasMessageContaining("debitedAtNanos must be <= nowNanos");
    assertThat(limiter.tryAcquire(SECOND, 21).admitted()).isFalse();
  }

  @Test
  void badInputIsRefusedWithTheFieldNamedAndTheStateUnchanged() {
    UpstreamLimiter limiter = limiter(WindowModel.FIXED, 1, 10, false);
    assertThat(limiter.tryAcquire(SECOND, 1).admitted()).isTrue();
    assertThatThrownBy(() -> limiter.tryAcquire(SECOND - 1, 1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("nowNanos");
    assertThatThrownBy(() -> limiter.tryAcquire(SECOND, -1))
        .hasMessageContaining("tokens must be finite and >= 0");
    assertThatThrownBy(() -> limiter.tryAcquire(SECOND, Double.NaN)).hasMessageContaining("tokens");
    assertThat(limiter.tryAcquire(2 * SECOND, 1).admitted()).isTrue();
  }

  @Test
  void specsAndModelsAreRangeChecked() {
    assertThat(WindowModel.parse(" Sliding ")).isEqualTo(WindowModel.SLIDING);
    assertThat(WindowModel.BUCKET.label()).isEqualTo("bucket");
    assertThatThrownBy(() -> WindowModel.parse("leaky"))
        .hasMessage("window must be one of fixed, sliding, bucket, but was: leaky");
    assertThatThrownBy(() -> LimitSpec.perSecond(WindowModel.FIXED, 0))
        .hasMessageContaining("limitPerPeriod must be finite and > 0");
    assertThatThrownBy(() -> LimitSpec.perSecond(WindowModel.FIXED, Double.POSITIVE_INFINITY))
        .hasMessageContaining("limitPerPeriod");
    assertThatThrownBy(() -> LimitSpec.of(WindowModel.FIXED, 1, Duration.ZERO))
        .hasMessageContaining("period must be in the range [1ms, 1d]");
    assertThatThrownBy(
            () -> new UpstreamLimiter(LimitSpec.perSecond(WindowModel.BUCKET, 0.5), null, false))
        .hasMessageStartingWith("requests limit per period must be >= 1");
  }

  private static UpstreamLimiter limiter(
      WindowModel model, double requests, double tokens, boolean rejectedCount) {
    return new UpstreamLimiter(
        Double.isNaN(requests) ? null : LimitSpec.perSecond(model, requests),
        Double.isNaN(tokens) ? null : LimitSpec.perSecond(model, tokens),
        rejectedCount);
  }

  /** Arrivals with exponential gaps of mean {@code meanGap} and token charges in [0, 200). */
  private static List<long[]> randomTrace(long seed, int count, long meanGap) {
    Random random = new Random(seed);
    List<long[]> trace = new ArrayList<>();
    long t = 0;
    for (int i = 0; i < count; i++) {
      t += (long) (-Math.log(1 - random.nextDouble()) * meanGap);
      trace.add(new long[] {t, random.nextInt(200)});
    }
    return trace;
  }

  private static List<Call> replay(UpstreamLimiter limiter, List<long[]> trace) {
    List<Call> calls = new ArrayList<>();
    for (long[] arrival : trace) {
      calls.add(new Call(arrival[0], arrival[1], limiter.tryAcquire(arrival[0], arrival[1])));
    }
    return calls;
  }

  private static List<Long> admittedTimes(List<Call> calls) {
    return calls.stream().filter(c -> c.verdict().admitted()).map(Call::at).toList();
  }

  private static org.assertj.core.data.Offset<Double> within() {
    return org.assertj.core.data.Offset.offset(1e-6);
  }
}
