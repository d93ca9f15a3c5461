package io.backpressure.eval.sim;

import static org.assertj.core.api.Assertions.assertThat;

import io.backpressure.core.RejectReason;
import io.backpressure.eval.measure.Recording;
import io.backpressure.eval.workload.Workload;
import io.backpressure.eval.workload.Workloads;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/**
 * The {@code daily-token-window} workload: a batch that starts at 23:40 Pacific time meets the
 * provider's 3 000 000 tokens per day, side by side with bp (its own window of the same size), bp
 * without it ({@code bp-no-limits}, which learns of the spent day from the provider's per-day 429)
 * and naive (the SDK sleeps on its slot for the retry-after). What the provider counted each day is
 * summed from the recorded attempts; the day ends at midnight in America/Los_Angeles, 20 minutes
 * into the run.
 */
class DailyTokenWindowTest {
  private static final long SECOND = 1_000_000_000L;

  /** Midnight in the zone, in virtual time: 00:00 is 20 minutes after the 23:40 start. */
  private static final long MIDNIGHT = 1_200 * SECOND;

  private static final double DAY_CAP = 3_000_000;

  /** The largest debit of one call in reservation mode: prompt 800 + max_tokens 500. */
  private static final double LARGEST_CALL = 1_300;

  @Test
  void theGateEndsCallsThatCannotFitAtOnceWithTheResetNoneOverTheCapAndResumesAtMidnight() {
    Workload workload = Workloads.load("daily-token-window");
    assertThat(
            Duration.between(workload.startAt(), Instant.parse("2026-12-08T08:00:00Z")).toNanos())
        .isEqualTo(MIDNIGHT);
    Measured bp = measure(workload, "bp");
    Measured learned = measure(workload, "bp-no-limits");
    Measured naive = measure(workload, "naive");
    System.out.println("daily-token-window, seed 1:\n" + Measured.HEADER + bp + learned + naive);

    // bp: the provider never refuses; the day holds at most its cap, and is spent to within one
    // call's debit of it before the calls that cannot fit are refused
    assertThat(bp.dayLimited429()).isZero();
    assertThat(bp.tokensDay1()).isLessThanOrEqualTo(DAY_CAP).isGreaterThan(DAY_CAP - LARGEST_CALL);
    // each refused call ended with the reset instant, midnight in the zone, within a second or two:
    // a call that would fit once the reservations of the calls in flight come back is deferred
    // for 250 ms at a time until they have (one call's latency), never until midnight
    assertThat(bp.limitReached()).isPositive();
    assertThat(bp.otherRejections()).isZero();
    assertThat(bp.resetsAtMidnight()).isEqualTo(bp.limitReached());
    assertThat(bp.longestRefusalNanos()).isLessThan(2 * SECOND);
    assertThat(bp.firstRefusalNanos()).isLessThan(MIDNIGHT);
    // the window resets at midnight: sending resumes within a second, and the new day is counted
    // from zero
    assertThat(bp.firstSentAfterMidnightNanos()).isBetween(MIDNIGHT, MIDNIGHT + SECOND);
    assertThat(bp.tokensDay2()).isBetween(DAY_CAP / 3, DAY_CAP * 2 / 3);
    assertThat(bp.okDay2()).isPositive();

    // Without its own window the gate hears the provider's per-day 429 and refuses the rest until
    // midnight with LIMIT_REACHED: only the calls already sent meet the provider's refusal.
    assertThat(learned.dayLimited429()).isPositive().isLessThanOrEqualTo(6);
    assertThat(learned.tokensDay1()).isLessThanOrEqualTo(DAY_CAP);
    assertThat(learned.limitReached()).isPositive();
    assertThat(learned.resetsAtMidnight()).isEqualTo(learned.limitReached());
    assertThat(learned.longestRefusalNanos()).isLessThan(SECOND / 10);
    assertThat(learned.firstSentAfterMidnightNanos()).isBetween(MIDNIGHT, MIDNIGHT + SECOND);

    // naive's SDK sleeps on the slot until the retry-after, midnight: its calls wait for minutes
    assertThat(naive.limitReached()).isZero();
    assertThat(naive.longestOkNanos()).isGreaterThan(300 * SECOND);
  }

  private static Measured measure(Workload workload, String configuration) {
    Recording r = new SimRunner().run(workload, Configuration.named(configuration), 1);
    double tokensDay1 = 0;
    double tokensDay2 = 0;
    long dayLimited = 0;
    long firstAfterMidnight = Long.MAX_VALUE;
    for (Recording.Attempt a : r.attempts()) {
      if (a.counted()) {
        if (a.startNanos() < MIDNIGHT) {
          tokensDay1 += a.tokens();
        } else {
          tokensDay2 += a.tokens();
          firstAfterMidnight = Math.min(firstAfterMidnight, a.startNanos());
        }
      }
      if (a.boundDimension() != null && a.boundDimension().endsWith(SimUpstream.PER_DAY)) {
        dayLimited++;
      }
    }
    long limitReached = 0;
    long other = 0;
    long atMidnight = 0;
    long longestRefusal = 0;
    long refusedDeferrals = 0;
    long firstRefusal = Long.MAX_VALUE;
    long longestOk = 0;
    long okDay2 = 0;
    for (Recording.Call c : r.calls()) {
      if (c.rejectReason() == RejectReason.LIMIT_REACHED) {
        limitReached++;
        // the provider's retry-after is in whole milliseconds, rounded up
        atMidnight += Math.abs(c.resetAtNanos() - MIDNIGHT) < 1_000_000 ? 1 : 0;
        longestRefusal = Math.max(longestRefusal, c.finishedNanos() - c.submittedNanos());
        refusedDeferrals += c.deferrals();
        firstRefusal = Math.min(firstRefusal, c.finishedNanos());
      } else if (c.rejectReason() != null) {
        other++;
      }
      if (c.outcome() == Recording.Outcome.OK) {
        longestOk = Math.max(longestOk, c.finishedNanos() - c.submittedNanos());
        okDay2 += c.submittedNanos() >= MIDNIGHT ? 1 : 0;
      }
    }
    return new Measured(
        configuration,
        tokensDay1,
        tokensDay2,
        dayLimited,
        limitReached,
        other,
        atMidnight,
        longestRefusal,
        refusedDeferrals,
        firstRefusal,
        firstAfterMidnight,
        longestOk,
        okDay2);
  }

  /** One run's numbers. */
  record Measured(
      String name,
      double tokensDay1,
      double tokensDay2,
      long dayLimited429,
      long limitReached,
      long otherRejections,
      long resetsAtMidnight,
      long longestRefusalNanos,
      long refusedDeferrals,
      long firstRefusalNanos,
      long firstSentAfterMidnightNanos,
      long longestOkNanos,
      long okDay2) {
    static final String HEADER =
        "| config | tokens counted before midnight | per-day 429s | LIMIT_REACHED (reset at"
            + " midnight) | first refusal | longest refusal (deferrals) | first sent after midnight | tokens"
            + " after midnight | answered after midnight | longest answered call |\n"
            + "|---|---|---|---|---|---|---|---|---|---|\n";

    @Override
    public String toString() {
      return String.format(
          "| %s | %.0f | %d | %d (%d) | %s | %s (%d) | %s | %.0f | %d | %.1f s |%n",
          name,
          tokensDay1,
          dayLimited429,
          limitReached,
          resetsAtMidnight,
          firstRefusalNanos == Long.MAX_VALUE
              ? "none"
              : String.format("%.1f s", firstRefusalNanos / 1e9),
          limitReached == 0 ? "none" : String.format("%.1f ms", longestRefusalNanos / 1e6),
          refusedDeferrals,
          firstSentAfterMidnightNanos == Long.MAX_VALUE
              ? "none"
              : String.format("+%.3f s", (firstSentAfterMidnightNanos - MIDNIGHT) / 1e9),
          tokensDay2,
          okDay2,
          longestOkNanos / 1e9);
    }
  }
}
