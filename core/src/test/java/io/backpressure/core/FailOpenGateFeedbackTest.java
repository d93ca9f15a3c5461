package io.backpressure.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.backpressure.core.feedback.FeedbackPolicy;
import io.backpressure.core.feedback.ProviderSignal;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * The fail-open wrapper passes answers on, and starts the delegate's recovery ramp when gating
 * resumes after calls went ungated (OPEN), not after LOCAL.
 */
class FailOpenGateFeedbackTest {
  private static final Policy POLICY =
      Policy.builder("test/model")
          .requestsPerSecond(60)
          .priority("P1", 1)
          .feedback(
              FeedbackPolicy.builder()
                  .period(Duration.ofSeconds(1))
                  .ramp(0.25, Duration.ofSeconds(10))
                  .build())
          .build();

  private final ManualClock clock = new ManualClock();
  private final InMemoryGate real = InMemoryGate.create(POLICY, clock);
  private final AtomicBoolean down = new AtomicBoolean();
  private final Gate flaky =
      new Gate() {
        @Override
        public String target() {
          return real.target();
        }

        @Override
        public Admission admit(AdmissionRequest request) {
          if (down.get()) {
            throw new IllegalStateException("connection refused");
          }
          return real.admit(request);
        }

        @Override
        public boolean release(Grant grant, Cost actual) {
          return real.release(grant, actual);
        }

        @Override
        public void feedback(Grant grant, ProviderSignal signal) {
          if (down.get()) {
            throw new IllegalStateException("connection refused");
          }
          real.feedback(grant, signal);
        }
      };
  private final FailOpenGate gate =
      FailOpenGate.around(flaky).probeInterval(Duration.ofMillis(500)).clock(clock).build();

  @Test
  void answersReachTheDelegate_andAFailureToDeliverOneIsCountedNotThrown() {
    gate.feedback(null, ProviderSignal.ofStatus(200).withLimit("requests", 30.0, null, null));
    assertThat(real.feedbackState().dimensions().get("requests").effective()).isEqualTo(28.5);

    down.set(true);
    gate.feedback(null, ProviderSignal.ofStatus(429));
    assertThat(gate.failures()).isEqualTo(1);
    assertThat(real.feedbackState().decreases()).isZero();
  }

  @Test
  void gatingThatResumesAfterFailingOpenStartsTheRamp() {
    assertThat(gate.admit("a", "P1", Cost.requests(1))).isInstanceOf(Admission.Admitted.class);
    assertThat(real.feedbackState().ramps()).isZero();

    down.set(true);
    assertThat(gate.admit("a", "P1", Cost.requests(1)))
        .isInstanceOfSatisfying(
            Admission.Admitted.class, a -> assertThat(a.grant().failedOpen()).isTrue());
    down.set(false);
    clock.advance(Duration.ofSeconds(1));
    gate.admit("a", "P1", Cost.requests(1));

    assertThat(real.feedbackState().ramps()).isEqualTo(1);
    assertThat(real.feedbackState().rampMultiplier()).isEqualTo(0.25);
    gate.admit("a", "P1", Cost.requests(1));
    assertThat(real.feedbackState().ramps()).as("once per outage").isEqualTo(1);
  }

  @Test
  void gatingThatResumesAfterALocalOutage_startsNoRamp() {
    FailOpenGate local =
        FailOpenGate.around(flaky)
            .mode(FailOpenGate.Mode.LOCAL)
            .localFallback(POLICY)
            .probeInterval(Duration.ofMillis(500))
            .clock(clock)
            .build();
    assertThat(local.admit("a", "P1", Cost.requests(1))).isInstanceOf(Admission.Admitted.class);
    down.set(true);
    local.admit("a", "P1", Cost.requests(1));
    down.set(false);
    clock.advance(Duration.ofSeconds(1));
    local.admit("a", "P1", Cost.requests(1));

    assertThat(local.failures()).isEqualTo(1);
    assertThat(real.feedbackState().ramps())
        .as("the local gate paced the calls: nothing to ramp")
        .isZero();
    assertThat(real.feedbackState().rampMultiplier()).isEqualTo(1.0);
  }
}
