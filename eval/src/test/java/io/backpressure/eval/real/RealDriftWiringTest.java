package io.backpressure.eval.real;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.backpressure.core.Admission;
import io.backpressure.core.AdmissionRequest;
import io.backpressure.core.Cost;
import io.backpressure.core.InMemoryGate;
import io.backpressure.core.ManualClock;
import io.backpressure.core.feedback.ProviderSignals;
import io.backpressure.eval.sim.GateConfiguration;
import io.backpressure.eval.workload.Workload;
import io.backpressure.eval.workload.WorkloadReader;
import io.backpressure.eval.workload.Workloads;
import io.backpressure.mock.MockProviderConfig;
import io.backpressure.mock.limit.OutsideTraffic;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Real mode's share of provider feedback: the mock's drift options and the gate wrappers. */
class RealDriftWiringTest {

  @Test
  void theMockProviderGetsTheWorkloadsOutsideTrafficAndErrorRate() {
    Workload w =
        WorkloadReader.parse(
            """
        name: drift
        duration_s: 10
        upstream:
          requests_per_s: 40
          tokens_per_s: 4000
          outside: {requests_per_s: 10, tokens_per_s: 1000}
          error_rate: 0.1
        priorities: {P1: 1}
        worker: {slots: 1}
        tenants:
          - {name: a, priority: P1, workflows: 1}
        """);
    MockProviderConfig config = RealRunner.mockConfig(w, 1);
    assertThat(config.outside()).isEqualTo(new OutsideTraffic(10, 1000));
    assertThat(config.errorRate()).isEqualTo(0.1);
    assertThat(RealRunner.mockConfig(Workloads.load("cross-priority"), 1).outside())
        .isEqualTo(OutsideTraffic.NONE);
  }

  @Test
  void workloadsThatCountPerCalendarDayAreLeftToTheSimulator() {
    for (String name : List.of("daily-token-window", "quota-exhausted")) {
      Workload w = Workloads.load(name);
      assertThatThrownBy(() -> RealRunner.mockConfig(w, 1))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("modelled by the simulator only (--mode sim)");
    }
  }

  @Test
  void theRealModeGateWrappersForwardTheProvidersAnswersToTheGate() {
    Workload w = Workloads.load("caps-too-high");
    ManualClock clock = new ManualClock();
    InMemoryGate gate =
        InMemoryGate.create(GateConfiguration.policy(w, GateConfiguration.Variant.FULL), clock);
    DeadlineGate wrapped = new DeadlineGate(new TimedGate(gate, new Ledger(0)));
    Admission admission =
        wrapped.admit(AdmissionRequest.of("t_p1_a", "P1", Cost.requests(1).tokens(100)));
    assertThat(admission).isInstanceOf(Admission.Admitted.class);
    Admission.Admitted admitted = (Admission.Admitted) admission;
    wrapped.release(admitted.grant(), Cost.requests(1).tokens(150));
    wrapped.feedback(
        admitted.grant(),
        ProviderSignals.parse(
            200,
            Map.of(
                "x-ratelimit-limit-requests",
                List.of("60"),
                "x-ratelimit-remaining-requests",
                List.of("59"),
                "x-ratelimit-reset-requests",
                List.of("900ms")),
            null,
            Instant.EPOCH));
    // Configured 78 req/s; the provider says 60: adopted with the 5 % headroom.
    assertThat(gate.feedbackState().dimensions().get("requests").effective())
        .isCloseTo(57.0, within(1e-9));
  }
}
