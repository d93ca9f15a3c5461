package io.backpressure.eval.sim;

import static org.assertj.core.api.Assertions.assertThat;

import io.backpressure.eval.measure.Recording;
import io.backpressure.eval.workload.Workload;
import io.backpressure.eval.workload.WorkloadReader;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * The {@code latency-spell} workload side by side: bp with its adaptive concurrency limit, and the
 * same gate with its rate cap alone ({@code bp-no-concurrency}). The provider's latency rises
 * tenfold from t = 40 s to t = 70 s; the calls in flight are read from the recorded upstream
 * attempts, averaged over each second. The calls sent and then timed out are counted by when they
 * were sent: before the spell, in its first latency target (before any call in it can be overdue,
 * so no gate that reads the latency can hold them), or later; of the later ones, those sent while
 * no other call was in flight are counted apart (the probes of {@code Limits.Adaptive}).
 */
class LatencySpellTest {
  private static final long SECOND = 1_000_000_000L;
  private static final int SPELL_START = 40;
  private static final int SPELL_END = 70;

  /** The workload's adaptive latency target: no call can be overdue sooner into the spell. */
  private static final long LATENCY_TARGET = SECOND;

  /** Calls sent and timed out: sent before the spell (in flight when it starts). */
  private static final int IN_FLIGHT_AT_START = 0;

  /** Sent in the spell's first latency target, before any call in it could be overdue. */
  private static final int BEFORE_OVERDUE = 1;

  /** Sent later: the calls a gate that reads the latency could have held back. */
  private static final int LATER = 2;

  @Test
  void adaptiveConcurrencyShedsTheSlowSpellAndRecovers_theRateCapAloneSendsIntoIt()
      throws IOException {
    Workload workload = workload();
    Measured adaptive = measure(workload, "bp");
    Measured fixed = measure(workload, "bp-no-concurrency");
    System.out.println("latency-spell, seed 1:\n" + Measured.HEADER + adaptive + fixed);

    // Before the spell both gates carry the offered load (40 req/s × 0.2 s ≈ 8 in flight).
    assertThat(adaptive.before()).isBetween(6.0, 10.0);
    assertThat(fixed.before()).isBetween(6.0, 10.0);
    // The rate cap alone lets the calls in flight grow tenfold; the adaptive limit holds them at a
    // fraction of that from 5 s into the spell on.
    assertThat(fixed.spellPeak()).isGreaterThan(60);
    assertThat(adaptive.at(SPELL_START + 5)).isLessThanOrEqualTo(adaptive.before());
    assertThat(adaptive.spellAfter5s()).isLessThan(fixed.spellAfter5s() / 5);
    // Back to the load's level within 10 s of the recovery.
    assertThat(adaptive.recoveredWithin()).isLessThanOrEqualTo(10);
    // The calls sent before any call in the spell could be overdue are sent by both gates alike;
    // of those sent later, which a gate reading the latency could hold back, far fewer time out
    // (the rest are shed before they are sent).
    assertThat(adaptive.timedOut(BEFORE_OVERDUE)).isEqualTo(fixed.timedOut(BEFORE_OVERDUE));
    assertThat(adaptive.timedOut(IN_FLIGHT_AT_START)).isZero();
    assertThat(adaptive.timedOut(LATER)).isLessThan(fixed.timedOut(LATER) / 8);
    // The gate does not send a call whose deadline (2 s) its measured latency (1.5-2.5 s in the
    // spell) exceeds but for one probe at a time, so the floor (min 4) no longer sends its calls
    // into the spell whatever their deadline: the ones that time out were sent alone, as that
    // probe, or while the last latency measured was within their deadline.
    assertThat(adaptive.timedOut(LATER)).isLessThan(fixed.timedOut(LATER) / 20);
  }

  private static Workload workload() throws IOException {
    try (InputStream in =
        LatencySpellTest.class.getResourceAsStream("/workloads/latency-spell.yaml")) {
      return WorkloadReader.parse(new String(in.readAllBytes(), StandardCharsets.UTF_8));
    }
  }

  private static Measured measure(Workload workload, String configuration) {
    Recording r = new SimRunner().run(workload, Configuration.named(configuration), 1);
    int seconds = (int) Math.ceil(workload.durationS());
    double[] inFlight = new double[seconds];
    for (Recording.Attempt a : r.attempts()) {
      if (a.status() == 429) {
        continue;
      }
      // Each attempt adds its share of every second it overlaps.
      for (long s = a.startNanos() / SECOND; s * SECOND < a.endNanos() && s < seconds; s++) {
        long from = Math.max(a.startNanos(), s * SECOND);
        long to = Math.min(a.endNanos(), (s + 1) * SECOND);
        inFlight[(int) s] += (to - from) / (double) SECOND;
      }
    }
    long[] sentThenTimedOut = new long[3];
    long laterAlone = 0;
    long shed = 0;
    long ok = 0;
    for (Recording.Call c : r.calls()) {
      if (c.outcome() == Recording.Outcome.EXPIRED) {
        if (c.attempts() > 0) {
          long sent = c.firstAttemptNanos();
          int kind =
              sent < SPELL_START * SECOND
                  ? IN_FLIGHT_AT_START
                  : sent < SPELL_START * SECOND + LATENCY_TARGET ? BEFORE_OVERDUE : LATER;
          sentThenTimedOut[kind]++;
          if (kind == LATER && inFlightAt(r, sent) == 0) {
            laterAlone++;
          }
        } else {
          shed++;
        }
      } else if (c.outcome() == Recording.Outcome.OK) {
        ok++;
      }
    }
    return new Measured(configuration, inFlight, sentThenTimedOut, laterAlone, shed, ok);
  }

  /** Upstream calls in flight at {@code nanos}, not counting one sent at that instant. */
  private static int inFlightAt(Recording r, long nanos) {
    int n = 0;
    for (Recording.Attempt a : r.attempts()) {
      if (a.status() != 429 && a.startNanos() < nanos && a.endNanos() > nanos) {
        n++;
      }
    }
    return n;
  }

  /** One run's numbers. */
  record Measured(
      String name,
      double[] inFlight,
      long[] sentThenTimedOut,
      long laterAlone,
      long shed,
      long ok) {
    static final String HEADER =
        "| config | in flight before | peak in spell | at +5 s | mean +5..+30 s | recovered within"
            + " | sent, timed out: in flight at start / in the first 1 s / later (of which sent"
            + " alone) | shed unsent | answered in time |\n|---|---|---|---|---|---|---|---|---|\n";

    /** Calls sent and timed out, of one of the three kinds. */
    long timedOut(int kind) {
      return sentThenTimedOut[kind];
    }

    /** Mean calls in flight over [20 s, 40 s). */
    double before() {
      return mean(20, SPELL_START);
    }

    double at(int second) {
      return inFlight[second];
    }

    double spellPeak() {
      double peak = 0;
      for (int s = SPELL_START; s < SPELL_END; s++) {
        peak = Math.max(peak, inFlight[s]);
      }
      return peak;
    }

    double spellAfter5s() {
      return mean(SPELL_START + 5, SPELL_END);
    }

    /** Seconds after the spell until a second's mean in flight is back to 3/4 of before. */
    int recoveredWithin() {
      for (int s = SPELL_END; s < inFlight.length; s++) {
        if (inFlight[s] >= 0.75 * before() && inFlight[s] <= 1.5 * before()) {
          return s - SPELL_END + 1;
        }
      }
      return Integer.MAX_VALUE;
    }

    private double mean(int from, int to) {
      double sum = 0;
      for (int s = from; s < to; s++) {
        sum += inFlight[s];
      }
      return sum / (to - from);
    }

    @Override
    public String toString() {
      return String.format(
          "| %s | %.1f | %.1f | %.1f | %.1f | %d s | %d / %d / %d (%d) | %d | %d |%n",
          name,
          before(),
          spellPeak(),
          at(SPELL_START + 5),
          spellAfter5s(),
          recoveredWithin(),
          sentThenTimedOut[IN_FLIGHT_AT_START],
          sentThenTimedOut[BEFORE_OVERDUE],
          sentThenTimedOut[LATER],
          laterAlone,
          shed,
          ok);
    }
  }
}
