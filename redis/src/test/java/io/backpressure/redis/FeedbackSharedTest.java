package io.backpressure.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.backpressure.core.Admission;
import io.backpressure.core.AdmissionRequest;
import io.backpressure.core.Cost;
import io.backpressure.core.Dimension;
import io.backpressure.core.ManualClock;
import io.backpressure.core.Policy;
import io.backpressure.core.feedback.FeedbackPolicy;
import io.backpressure.core.feedback.FeedbackState;
import io.backpressure.core.feedback.ProviderSignal;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Two independent gates (two connections, as two worker processes have) on one target: the first
 * one's calls see the provider's 429s and headers, the second one's admissions follow at once,
 * because the effective caps live in the target's shared state. The caller's virtual clock is the
 * time source, so the counts are exact.
 */
class FeedbackSharedTest {
  private static final Policy POLICY =
      Policy.builder("openai/gpt-4o")
          .requestsPerSecond(60)
          .tokensPerSecond(6_000)
          .priority("P1", 1)
          .feedback(
              FeedbackPolicy.builder()
                  .period(Duration.ofSeconds(1))
                  .ramp(0.25, Duration.ofSeconds(10))
                  .build())
          .build();

  private final ManualClock clock = new ManualClock(1_000_000_000_000L);
  private final RedisGateConfig config =
      TestRedis.shared().config().policy(POLICY).timeSource(TimeSource.caller(clock)).build();
  private final RedisGate seesThe429s = RedisGate.connect(config);
  private final RedisGate other = RedisGate.connect(config);
  private long nextAttempt = clock.nanoTime();
  private String booking;

  @AfterEach
  void close() {
    seesThe429s.close();
    other.close();
  }

  @Test
  void aLimitHeaderSeenByOneGateLowersWhatTheOtherAdmits_andTheConfiguredCapSurvives() {
    admitFor(other, 1);
    assertThat(admitFor(other, 3)).isCloseTo(3 * 60, within(2.0));

    seesThe429s.feedback(
        null, ProviderSignal.ofStatus(200).withLimit("requests", 30.0, null, null));

    admitFor(other, 1);
    assertThat(admitFor(other, 4)).isCloseTo(4 * 28.5, within(2.0));
    assertThat(other.policy().dimensions().get(0).capPerSecond()).isEqualTo(60.0);
    assertThat(other.policyStore().policy().dimensions().get(0).capPerSecond()).isEqualTo(60.0);
    FeedbackState state = other.feedbackState().orElseThrow();
    assertThat(state.dimensions().get("requests").effective()).isEqualTo(28.5);
    assertThat(state.dimensions().get("requests").configured()).isEqualTo(60.0);
    assertThat(state.adoptions()).isEqualTo(1);
    assertThat(seesThe429s.feedbackState().orElseThrow()).as("one state for both").isEqualTo(state);
  }

  @Test
  void a429SeenByOneGateCutsTheOtherAndQuietAnswersRestoreIt() {
    admitFor(other, 2);
    clock.advance(Duration.ofSeconds(1)); // idle: L1 refills its whole burst
    seesThe429s.feedback(null, ProviderSignal.rateLimited("requests", Duration.ofSeconds(1)));
    assertThat(other.feedbackState().orElseThrow().dimensions().get("requests").cooldownSeconds())
        .isCloseTo(1.0, within(1e-6));
    assertThat(other.feedbackState().orElseThrow().dimensions().get("requests").effective())
        .isEqualTo(48.0);
    assertThat(admitFor(other, 1))
        .as("the other gate too sends nothing before the retry-after of 1 s has passed")
        .isZero();
    assertThat(admitFor(other, 0.2))
        .as("then what L1 refilled from empty at the cut cap (48/s) since the 429, and 0.2 s more")
        .isCloseTo(48 + 0.2 * 48, within(3.0));
    assertThat(admitFor(other, 0.8))
        .as("then the cut cap, 48/s, growing by 3/s")
        .isCloseTo(0.8 * (48 + 3 * 0.6), within(2.0));
    for (int i = 0; i < 60; i++) {
      admitFor(other, 0.1);
      seesThe429s.feedback(null, ProviderSignal.ofStatus(200));
    }
    assertThat(admitFor(other, 2))
        .as("grown back to 60 after 4 quiet seconds")
        .isCloseTo(120, within(2.0));
  }

  @Test
  void aPolicyWriteKeepsWhatWasLearnedFromTheNextAnswerOn() {
    seesThe429s.feedback(
        null, ProviderSignal.ofStatus(200).withLimit("requests", 30.0, null, null));
    seesThe429s.policyStore().setCap(Dimension.REQUESTS, 50, 50);
    seesThe429s.feedback(null, ProviderSignal.ofStatus(200));

    admitFor(other, 1);
    assertThat(admitFor(other, 4)).isCloseTo(4 * 28.5, within(2.0));
    FeedbackState state = other.feedbackState().orElseThrow();
    assertThat(state.dimensions().get("requests").configured()).isEqualTo(50.0);
    assertThat(state.dimensions().get("requests").effective()).isEqualTo(28.5);
  }

  @Test
  void afterFailingOpenAdmissionRampsUp() {
    admitFor(other, 1);
    seesThe429s.feedback(null, ProviderSignal.resumedAfterOutage());
    double first = admitFor(other, 0.5);
    assertThat(first).as("a quarter of 60/s at the ramp's start").isCloseTo(7.5, within(2.0));
    FeedbackState state = other.feedbackState().orElseThrow();
    assertThat(state.ramps()).isEqualTo(1);
    assertThat(state.rampMultiplier()).isCloseTo(0.25 + 0.75 * 0.05, within(1e-9));
  }

  /**
   * No answer is reported after the resumption, yet the other gate's admissions rise with the ramp
   * and are back at the cap once it has run: every decision applies the ramp at its own time.
   *
   * <p>Mutation tried: {@code follow_ramp} skipped in admit.lua and release.lua (60/s from the
   * start: this test and the one above fail).
   */
  @Test
  void theRampRisesWithTimeWhenNoAnswerIsReported() {
    admitFor(other, 1);
    seesThe429s.feedback(null, ProviderSignal.resumedAfterOutage());
    double first = admitFor(other, 1);
    double middle = admitFor(other, 4.5);
    admitFor(other, 5);
    double after = admitFor(other, 2);
    assertThat(first).as("about 0.25-0.325 of 60/s").isBetween(14.0, 21.0);
    assertThat(middle / 4.5).as("1-5.5 s into the ramp: about half of 60/s").isBetween(26.0, 33.0);
    assertThat(after).as("back at 60/s").isCloseTo(120, within(3.0));
  }

  /**
   * One caller always waiting at {@code gate} for {@code seconds} of virtual time; returns its
   * admissions.
   */
  private double admitFor(RedisGate gate, double seconds) {
    long until = clock.nanoTime() + (long) (seconds * 1e9);
    int admitted = 0;
    while (nextAttempt < until) {
      clock.set(Math.max(clock.nanoTime(), nextAttempt));
      AdmissionRequest request = AdmissionRequest.of("acme", "P1", Cost.requests(1));
      Admission answer = gate.admit(booking == null ? request : request.withBooking(booking));
      if (answer instanceof Admission.Admitted a) {
        admitted++;
        booking = null;
        gate.release(a.grant(), Cost.requests(1));
      } else if (answer instanceof Admission.Deferred d) {
        booking = d.booking();
        nextAttempt = clock.nanoTime() + d.retryAfter().toNanos();
      } else {
        throw new AssertionError("unexpected " + answer);
      }
    }
    clock.set(Math.max(clock.nanoTime(), until));
    return admitted;
  }
}
