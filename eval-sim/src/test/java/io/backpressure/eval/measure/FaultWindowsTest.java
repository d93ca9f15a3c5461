package io.backpressure.eval.measure;

import static org.assertj.core.api.Assertions.assertThat;

import io.backpressure.eval.workload.Fault;
import io.backpressure.eval.workload.Workload;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class FaultWindowsTest {
  private static final long SECOND = 1_000_000_000L;

  private static List<FaultWindows.Span> scheduled(String... faults) {
    return java.util.Arrays.stream(faults)
        .map(f -> FaultWindows.Span.scheduled(Fault.parse(f)))
        .toList();
  }

  /** {@code perSecond} requests spread evenly over [from, to) seconds, all answered {@code ok}. */
  private static void steady(
      List<FaultWindows.Arrival> into, double from, double to, int perSecond, boolean ok) {
    long step = SECOND / perSecond;
    for (long t = Workload.nanos(from); t < Workload.nanos(to); t += step) {
      into.add(new FaultWindows.Arrival(t, ok));
    }
  }

  @Test
  void windowsOverlappingAFaultsOwnDurationAreLeftOut_andAStateLossStartsTheStricterCount() {
    List<FaultWindows.Arrival> arrivals = new ArrayList<>();
    steady(arrivals, 0, 10, 10, true);
    steady(arrivals, 10, 12, 40, false); // ungated during a stalled Redis: inside redis-stop@10+2
    steady(arrivals, 12, 20, 10, true);
    steady(arrivals, 20, 20.5, 20, true); // right after the flush: above the cap of 10
    steady(arrivals, 20.5, 30, 10, true);
    List<FaultWindows.Span> faults = scheduled("redis-stop@10+2", "redis-flush@20");

    FaultWindows.Result r = FaultWindows.of(faults, arrivals, 10, SECOND, 0, Workload.nanos(30));

    assertThat(r.maxOutsideFaults()).isEqualTo(15); // 10 of the burst after the flush + 5 after it
    assertThat(r.maxAfterStateLoss()).isEqualTo(15);
    assertThat(
            FaultWindows.maxWindow(
                arrivals.stream().mapToLong(FaultWindows.Arrival::arrivalNanos).sorted().toArray(),
                SECOND,
                List.of(),
                Long.MIN_VALUE,
                Long.MAX_VALUE))
        .as("with nothing left out")
        .isEqualTo(40);
  }

  @Test
  void theStricterCountCoversTheWindowsThatHoldTheFirstPeriodAfterEachLoss() {
    List<FaultWindows.Arrival> arrivals = new ArrayList<>();
    steady(arrivals, 0, 9.5, 10, true);
    steady(arrivals, 9.5, 10, 20, true); // 5 more than the cap in a window holding 10.2 s
    steady(arrivals, 10, 20, 10, true);
    steady(arrivals, 20, 20.5, 20, true); // the same long after any loss
    steady(arrivals, 20.5, 30, 10, true);

    FaultWindows.Result near =
        FaultWindows.of(scheduled("redis-flush@10.2"), arrivals, 10, SECOND, 0, Workload.nanos(30));
    FaultWindows.Result before =
        FaultWindows.of(scheduled("redis-flush@9.6"), arrivals, 10, SECOND, 0, Workload.nanos(30));
    FaultWindows.Result far =
        FaultWindows.of(scheduled("redis-flush@12"), arrivals, 10, SECOND, 0, Workload.nanos(30));

    assertThat(near.maxOutsideFaults()).isEqualTo(15);
    assertThat(near.maxAfterStateLoss()).as("a window from 9.5 s holds 10.2 s").isEqualTo(15);
    assertThat(before.maxAfterStateLoss())
        .as("the bump is in the loss's first period")
        .isEqualTo(15);
    assertThat(far.maxAfterStateLoss())
        .as("every window holding 12–13 s keeps the cap")
        .isEqualTo(10);
    assertThat(far.maxOutsideFaults()).as("the later bump is the steady state's").isEqualTo(15);
  }

  @Test
  void noStateLossGivesNoStricterCount() {
    List<FaultWindows.Arrival> arrivals = new ArrayList<>();
    steady(arrivals, 0, 10, 10, true);
    FaultWindows.Result r =
        FaultWindows.of(
            scheduled("provider-slow@2+3"), arrivals, 10, SECOND, 0, Workload.nanos(10));
    assertThat(r.maxAfterStateLoss()).isNaN();
    assertThat(r.maxOutsideFaults()).isEqualTo(10);
  }

  @Test
  void recoveryIsTheTimeUntilNinetyPercentOfTheCapIsAnsweredWithinOnePeriod() {
    List<FaultWindows.Arrival> arrivals = new ArrayList<>();
    steady(arrivals, 0, 5, 10, true);
    steady(arrivals, 5, 8, 10, false); // 500s while the provider fails
    steady(arrivals, 8, 9.5, 4, true); // the gate comes back slowly
    steady(arrivals, 9.5, 20, 10, true);
    List<FaultWindows.Span> faults = scheduled("provider-errors@5+3", "redis-flush@19.9");

    FaultWindows.Result r =
        FaultWindows.of(faults, arrivals, 10, SECOND, SECOND, Workload.nanos(20));

    // 9 answers within one second, all after 8 s: from 9.25 s to 10.2 s.
    assertThat(r.recoveryS().get("provider-errors@5+3"))
        .isCloseTo(2.2, org.assertj.core.data.Offset.offset(1e-6));
    assertThat(r.recoveryS().get("redis-flush@19.9"))
        .as("never again: the time left")
        .isCloseTo(0.1, org.assertj.core.data.Offset.offset(1e-6));
    // 151 answers in the 16 s from 1 s to the end outside the provider's errors.
    assertThat(r.recoveryRateRps())
        .isCloseTo(151 / 16.0, org.assertj.core.data.Offset.offset(1e-6));
  }

  @Test
  void onAMachineThatCannotReachTheCapRecoveryIsMeasuredAgainstTheRateReachedOutsideTheFaults() {
    List<FaultWindows.Arrival> arrivals = new ArrayList<>();
    steady(arrivals, 0, 5, 5, true);
    steady(arrivals, 7, 20, 5, true);
    FaultWindows.Result r =
        FaultWindows.of(
            scheduled("redis-stop@5+2"), arrivals, 10, SECOND, SECOND, Workload.nanos(20));
    assertThat(r.recoveryRateRps()).isEqualTo(5.0);
    // 5 answers (90 % of 5, rounded up) within one second from 7 s on: the fifth at 7.8 s.
    assertThat(r.recoveryS().get("redis-stop@5+2"))
        .isCloseTo(0.8, org.assertj.core.data.Offset.offset(1e-6));
  }

  @Test
  void aFaultRunsFromItsFirstStepToItsClosingStepAsTheyTookEffect() {
    Fault kill = Fault.parse("redis-kill@5+2");
    Fault worker = Fault.parse("worker-kill@9+1");
    List<FaultWindows.Step> steps =
        List.of(
            new FaultWindows.Step(kill, false, Workload.nanos(5.01)),
            new FaultWindows.Step(kill, true, Workload.nanos(7.3)),
            new FaultWindows.Step(worker, false, Workload.nanos(9)));
    FaultWindows.Span restarted = FaultWindows.Span.of(kill, steps);
    assertThat(restarted)
        .isEqualTo(
            new FaultWindows.Span(
                "redis-kill@5+2", Workload.nanos(5.01), Workload.nanos(7.3), Workload.nanos(7.3)));
    FaultWindows.Span neverReplaced = FaultWindows.Span.of(worker, steps);
    assertThat(neverReplaced.endNanos()).isEqualTo(-1);

    List<FaultWindows.Arrival> arrivals = new ArrayList<>();
    steady(arrivals, 0, 7.3, 10, true);
    steady(
        arrivals, 7.3, 7.8, 40,
        true); // ungated until the restart took effect at 7.3 s, then a burst
    steady(arrivals, 7.8, 20, 10, true);
    FaultWindows.Result r =
        FaultWindows.of(
            List.of(restarted, neverReplaced), arrivals, 10, SECOND, 0, Workload.nanos(20));
    assertThat(r.recoveryS().get("worker-kill@9+1")).isNaN();
    assertThat(r.maxOutsideFaults())
        .as(
            "the burst after the restart; from 8 s on windows overlap the"
                + " unfinished worker-kill")
        .isEqualTo(25);
  }

  @Test
  void aSlowProviderIsSlowUntilItsLastSlowedAnswer() {
    List<FaultWindows.Arrival> arrivals = new ArrayList<>();
    steady(arrivals, 0, 5, 10, true);
    arrivals.add(new FaultWindows.Arrival(Workload.nanos(6.9), true, Workload.nanos(8.2)));
    steady(arrivals, 7, 20, 10, true);
    FaultWindows.Result r =
        FaultWindows.of(
            scheduled("provider-slow@5+2"), arrivals, 10, SECOND, 0, Workload.nanos(20));
    // From 8.2 s: nine answers within one second, the ninth at 9.0 s.
    assertThat(r.recoveryS().get("provider-slow@5+2"))
        .isCloseTo(0.8, org.assertj.core.data.Offset.offset(1e-6));
  }

  @Test
  void theShareOfFaultFreeWindowsBelowTheRecoveryMark_showsHowNoisyTheStackIsWithoutFaults() {
    List<FaultWindows.Arrival> steadyRun = new ArrayList<>();
    steady(steadyRun, 0, 20, 10, true);
    FaultWindows.Result even =
        FaultWindows.of(scheduled("redis-stop@10+2"), steadyRun, 10, SECOND, 0, Workload.nanos(20));
    assertThat(even.belowRecoveredShare())
        .as("10 a second, every window holds the 9 needed")
        .isZero();

    // A stack that alternates 2 s at 10/s and 1 s at 5/s, no fault: R = 8.2/s (25 of every 3 s
    // outside the fault), a recovery needs 8 in a window, and a window more than about 40 % inside
    // a slow second holds fewer: a third of them.
    List<FaultWindows.Arrival> swinging = new ArrayList<>();
    for (int s = 0; s < 30; s += 3) {
      steady(swinging, s, s + 2, 10, true);
      steady(swinging, s + 2, s + 3, 5, true);
    }
    FaultWindows.Result noisy =
        FaultWindows.of(scheduled("redis-stop@15+2"), swinging, 10, SECOND, 0, Workload.nanos(30));
    assertThat(noisy.recoveryRateRps()).isCloseTo(8.21, org.assertj.core.data.Offset.offset(0.01));
    assertThat(noisy.belowRecoveredShare())
        .isCloseTo(86 / 262.0, org.assertj.core.data.Offset.offset(1e-9));
  }

  @Test
  void aRecoveryCutShortByTheNextFault_endsAtThatFaultsStart() {
    List<FaultWindows.Arrival> arrivals = new ArrayList<>();
    steady(arrivals, 0, 5, 10, true);
    steady(arrivals, 7, 8, 3, true); // after redis-kill@5+2: too few to recover before the errors
    steady(arrivals, 8, 10, 10, false); // provider-errors@8+2: every call answered 500
    steady(arrivals, 10, 20, 10, true);
    FaultWindows.Result r =
        FaultWindows.of(
            scheduled("redis-kill@5+2", "provider-errors@8+2"),
            arrivals,
            10,
            SECOND,
            0,
            Workload.nanos(20));
    assertThat(r.recoveryS().get("redis-kill@5+2"))
        .as("censored at the next fault's start, 1 s after the end")
        .isEqualTo(1.0);
    assertThat(r.recoveryS().get("provider-errors@8+2"))
        .isCloseTo(0.8, org.assertj.core.data.Offset.offset(1e-9));
  }
}
