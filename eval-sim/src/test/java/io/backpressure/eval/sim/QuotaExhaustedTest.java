package io.backpressure.eval.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.backpressure.core.Limits;
import io.backpressure.core.RejectReason;
import io.backpressure.eval.measure.Recording;
import io.backpressure.eval.workload.Workload;
import io.backpressure.eval.workload.Workloads;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The {@code quota-exhausted} workload: four tenants of equal weight saturate the provider, and
 * tenant q has a spend quota of 1.00 per day. Three runs side by side: bp with the quota, bp
 * without it ({@code bp-no-limits}: q unlimited), and bp on the same workload without tenant q. q's
 * spend is priced from the recorded attempts (prompt at the input price, the rest at the output
 * price); the others' Jain index and shares are of their answered calls in the contention window
 * (from {@code warmup_s}), and their rates after q stopped are compared over the same span.
 */
class QuotaExhaustedTest {
  private static final long SECOND = 1_000_000_000L;
  private static final List<String> OTHERS = List.of("a", "b", "c");
  private static final Limits.Price PRICE = new Limits.Price(2.50, 10.00);
  private static final double QUOTA = 1.00;

  /** The most one call can cost: prompt 1 500 and completion 400 tokens. */
  private static final double LARGEST_CALL = PRICE.of(1_500, 400);

  /** The next midnight UTC after the noon start. */
  private static final long MIDNIGHT = 12 * 3_600 * SECOND;

  @Test
  void theTenantStopsWithinOneCallOfItsBudgetAndTheOthersJainAndSharesAreUnchanged() {
    Workload workload = Workloads.load("quota-exhausted");
    Measured quota = measure(workload, "bp", "bp, q's quota");
    Measured unlimited = measure(workload, "bp-no-limits", "bp-no-limits, q unlimited");
    Measured without = measure(withoutQ(workload), "bp", "bp, no tenant q");
    long stop = quota.stoppedAtNanos();
    System.out.println(
        "quota-exhausted, seed 1:\n"
            + Measured.HEADER
            + quota.row(stop)
            + unlimited.row(stop)
            + without.row(stop));

    // q is stopped by its quota, within one call's cost of it and never over it (reservation mode
    // debits the call's largest output at admission), each of its workflows once, with the reset
    // instant at the next midnight UTC; no other tenant is refused
    assertThat(quota.qSpend()).isLessThanOrEqualTo(QUOTA).isGreaterThan(QUOTA - LARGEST_CALL);
    assertThat(quota.quotaExhausted()).isEqualTo(8);
    assertThat(quota.resetsAtMidnight()).isEqualTo(8);
    assertThat(quota.othersRefused()).isZero();
    assertThat(quota.stoppedAtNanos()).isBetween(30 * SECOND, 90 * SECOND);
    assertThat(unlimited.quotaExhausted()).isZero();
    assertThat(unlimited.qSpend()).isGreaterThan(2 * QUOTA);

    // The others' Jain index is the same with q's quota, without it and without q; their shares of
    // what they are served are those beside an unlimited q (same tenants, same call sizes), and
    // within the gate's spread of a third in every run.
    for (Measured m : List.of(quota, unlimited, without)) {
      assertThat(m.othersJain()).isGreaterThan(0.998);
      for (String t : OTHERS) {
        assertThat(m.othersShare().get(t)).isCloseTo(1.0 / 3, within(0.02));
      }
    }
    assertThat(quota.othersJain()).isCloseTo(unlimited.othersJain(), within(0.001));
    assertThat(quota.othersJain()).isCloseTo(without.othersJain(), within(0.001));
    for (String t : OTHERS) {
      assertThat(quota.othersShare().get(t))
          .isCloseTo(unlimited.othersShare().get(t), within(0.005));
    }
    // Once q has stopped, the others take what it left: their rate is that of the workload
    // without q, and above what they get beside an unlimited q.
    assertThat(quota.othersRateAfterStop())
        .isCloseTo(without.othersRateAfter(quota.stoppedAtNanos()), within(0.3));
    assertThat(quota.othersRateAfterStop())
        .isGreaterThan(1.2 * unlimited.othersRateAfter(quota.stoppedAtNanos()));
  }

  /** {@code workload} without tenant q and its quota. */
  private static Workload withoutQ(Workload w) {
    Limits limits = w.gate().limits();
    Workload.GateOptions gate =
        new Workload.GateOptions(
            w.gate().reservation(),
            w.gate().defaultMaxTokens(),
            w.gate().caps(),
            new Limits(
                limits.concurrency(),
                limits.calendar(),
                limits.timeZone(),
                limits.price(),
                Map.of(),
                null,
                Map.of()));
    return new Workload(
        w.name() + "-without-q",
        w.description(),
        w.durationS(),
        w.warmupS(),
        w.startAt(),
        w.upstream(),
        w.priorities(),
        w.slots(),
        gate,
        w.tenants().stream().filter(t -> !t.name().equals("q")).toList(),
        w.scale());
  }

  private static Measured measure(Workload workload, String configuration, String label) {
    Recording r = new SimRunner().run(workload, Configuration.named(configuration), 1);
    int q = index(workload, "q");
    double spend = 0;
    for (Recording.Attempt a : r.attempts()) {
      if (a.queue() == q && a.ok()) {
        spend += PRICE.of(a.promptTokens(), a.tokens() - a.promptTokens());
      }
    }
    long exhausted = 0;
    long atMidnight = 0;
    long othersRefused = 0;
    long stoppedAt = Long.MAX_VALUE;
    for (Recording.Call c : r.calls()) {
      if (c.rejectReason() == RejectReason.QUOTA_EXHAUSTED && c.queue() == q) {
        exhausted++;
        atMidnight += c.resetAtNanos() == MIDNIGHT ? 1 : 0;
        stoppedAt = Math.min(stoppedAt, c.finishedNanos());
      } else if (c.rejectReason() != null) {
        othersRefused++;
      }
    }
    return new Measured(label, workload, r, spend, exhausted, atMidnight, othersRefused, stoppedAt);
  }

  private static int index(Workload workload, String tenant) {
    for (int i = 0; i < workload.tenants().size(); i++) {
      if (workload.tenants().get(i).name().equals(tenant)) {
        return i;
      }
    }
    return -1;
  }

  /** One run's numbers. */
  record Measured(
      String name,
      Workload workload,
      Recording recording,
      double qSpend,
      long quotaExhausted,
      long resetsAtMidnight,
      long othersRefused,
      long stoppedAtNanos) {
    static final String HEADER =
        "| run | q's spend | q's calls answered | QUOTA_EXHAUSTED (reset at midnight UTC) | q"
            + " stopped at | others' Jain (answered calls) | token shares of a / b / c | others'"
            + " calls/s from q's stop + 1 s"
            + " |\n|---|---|---|---|---|---|---|---|\n";

    /** Answered calls of {@code tenant} that ended in {@code [from, to)}. */
    long answered(String tenant, long from, long to) {
      int i = index(workload, tenant);
      return recording.calls().stream()
          .filter(
              c ->
                  c.queue() == i
                      && c.outcome() == Recording.Outcome.OK
                      && c.finishedNanos() >= from
                      && c.finishedNanos() < to)
          .count();
    }

    private long window(String tenant) {
      return answered(tenant, Workload.nanos(workload.warmupS()), recording.endNanos());
    }

    /** Jain's index of the other tenants' answered calls in the contention window. */
    double othersJain() {
      double sum = 0;
      double squares = 0;
      for (String t : OTHERS) {
        double x = window(t);
        sum += x;
        squares += x * x;
      }
      return sum * sum / (OTHERS.size() * squares);
    }

    /**
     * Each other tenant's share of the tokens the provider served the others (their dominant
     * resource, which the gate divides) in the contention window.
     */
    Map<String, Double> othersShare() {
      long from = Workload.nanos(workload.warmupS());
      double[] served = new double[OTHERS.size()];
      double total = 0;
      for (Recording.Attempt a : recording.attempts()) {
        int other = OTHERS.indexOf(workload.tenants().get(a.queue()).name());
        if (other >= 0 && a.ok() && a.startNanos() >= from) {
          served[other] += a.tokens();
          total += a.tokens();
        }
      }
      return Map.of("a", served[0] / total, "b", served[1] / total, "c", served[2] / total);
    }

    /** The others' answered calls per second from {@code from} (plus one call's latency) on. */
    double othersRateAfter(long from) {
      long start = from + SECOND;
      return OTHERS.stream().mapToLong(t -> answered(t, start, recording.endNanos())).sum()
          / ((recording.endNanos() - start) / 1e9);
    }

    double othersRateAfterStop() {
      return othersRateAfter(stoppedAtNanos);
    }

    /** This run's row, with the others' rate from {@code stop} (q's stop in the quota run) on. */
    String row(long stop) {
      Map<String, Double> shares = othersShare();
      int q = index(workload, "q");
      return String.format(
          "| %s | %s | %s | %d (%d) | %s | %.4f | %.3f / %.3f / %.3f | %s |%n",
          name,
          q < 0 ? "-" : String.format("%.4f", qSpend),
          q < 0 ? "-" : Long.toString(answered("q", 0, recording.endNanos())),
          quotaExhausted,
          resetsAtMidnight,
          stoppedAtNanos == Long.MAX_VALUE ? "-" : String.format("%.1f s", stoppedAtNanos / 1e9),
          othersJain(),
          shares.get("a"),
          shares.get("b"),
          shares.get("c"),
          String.format("%.2f", othersRateAfter(stop)));
    }
  }
}
