package io.backpressure.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.backpressure.client.test.SlowSend;
import io.backpressure.core.Admission;
import io.backpressure.core.Cost;
import io.backpressure.core.ManualClock;
import io.backpressure.core.Policy;
import io.backpressure.core.feedback.ProviderSignal;
import io.backpressure.core.testing.RecordingGate;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * A call admitted by {@link GatedCall} must leave within its gate's {@code sendWithin()} (a
 * twentieth of the safe window: 50 ms here); one that reaches {@link GatedCall#beforeSend()} later
 * gives its grant back unused and is admitted again before it is sent.
 */
class SendByTest {
  private final ManualClock clock = new ManualClock();
  private final RecordingGate gate = SlowSend.gate("openai/gpt-4o", clock);
  private final GatedCall gated = GatedCall.builder(gate).ticker(clock).build();
  private final GateContext acme = GateContext.of("acme", "P1");
  private final Cost estimate = Cost.requests(1).tokens(100);

  @Test
  void theBoundIsATwentiethOfTheSafeWindowAndNoneWithoutOne() {
    assertThat(gate.sendWithin()).isEqualTo(Duration.ofMillis(50));
    Policy minute = Policy.builder("t").requestsPerMinute(60).priority("P1", 1).build();
    assertThat(minute.sendWithin()).isEqualTo(Duration.ofSeconds(3));
    assertThat(
            Policy.builder("t")
                .requestsPerSecond(5)
                .priority("P1", 1)
                .withoutSafeWindow()
                .build()
                .sendWithin())
        .isNull();
  }

  @Test
  void aCallSentInTimeIsAdmittedOnce() {
    String reply =
        gated.call(
            acme,
            estimate,
            null,
            () -> {
              clock.advance(Duration.ofMillis(50));
              GatedCall.beforeSend();
              return "reply";
            },
            r -> Cost.requests(1).tokens(120));

    assertThat(reply).isEqualTo("reply");
    assertThat(gate.admissions()).hasSize(1);
    assertThat(gate.releasedWith()).containsExactly(Cost.requests(1).tokens(120));
  }

  @Test
  void aLateCallGivesItsGrantBackUnusedAndIsAdmittedAgainBeforeItIsSent() {
    String reply =
        gated.call(
            acme,
            estimate,
            null,
            () -> {
              clock.advance(Duration.ofMillis(51));
              GatedCall.beforeSend();
              GatedCall.beforeSend(); // a second send of the same call (a tool's follow-up) passes
              return "reply";
            },
            r -> Cost.requests(1).tokens(120));

    assertThat(reply).isEqualTo("reply");
    assertThat(gate.admissions())
        .hasSize(2)
        .allSatisfy(a -> assertThat(a).isInstanceOf(Admission.Admitted.class));
    Admission.Admitted first = (Admission.Admitted) gate.admissions().get(0);
    Admission.Admitted second = (Admission.Admitted) gate.admissions().get(1);
    assertThat(gate.releases())
        .extracting(RecordingGate.Release::grant)
        .containsExactly(first.grant(), second.grant());
    assertThat(gate.releasedWith())
        .containsExactly(Cost.requests(0).tokens(0), Cost.requests(1).tokens(120));
    assertThat(gate.releases()).allSatisfy(r -> assertThat(r.applied()).isTrue());
    assertThat(gate.outstanding()).isZero();
  }

  @Test
  void aGrantGivenBackUnusedFreesItsPlaceInTheSafeWindow() {
    // The window holds five requests a second: four admitted, and a fifth that comes back late.
    for (int i = 0; i < 4; i++) {
      gated.call(acme, estimate, null, () -> "reply", r -> Cost.requests(1).tokens(100));
    }
    gated.call(
        acme,
        estimate,
        null,
        () -> {
          clock.advance(Duration.ofMillis(100));
          GatedCall.beforeSend();
          return "reply";
        },
        r -> Cost.requests(1).tokens(100));

    // Had the first admission of the late call still counted, the window would be over its cap.
    assertThat(gate.admissions())
        .hasSize(6)
        .allSatisfy(a -> assertThat(a).isInstanceOf(Admission.Admitted.class));
    assertThat(gate.admit(acme.tenant(), acme.priority(), estimate))
        .isInstanceOf(Admission.Deferred.class);
  }

  @Test
  void aLateCallThatIsNotAdmittedAgainFailsWithTheGatesAnswerHoweverTheClientWrappedIt() {
    assertThatThrownBy(
            () ->
                gated.call(
                    acme,
                    estimate,
                    null,
                    () -> {
                      clock.advance(Duration.ofMillis(100));
                      // Meanwhile the provider asked for a pause: the gate defers every call.
                      gate.feedback(
                          null, ProviderSignal.rateLimited("requests", Duration.ofSeconds(2)));
                      try {
                        GatedCall.beforeSend();
                      } catch (RuntimeException e) {
                        throw new IllegalStateException("the HTTP client wrapped it", e);
                      }
                      return "reply";
                    },
                    r -> Cost.requests(1).tokens(100)))
        .isInstanceOf(DeferredException.class);
    assertThat(gate.admissions()).hasSize(2);
    assertThat(gate.admissions().get(1)).isInstanceOf(Admission.Deferred.class);
    assertThat(gate.releasedWith()).containsExactly(Cost.requests(0).tokens(0));
    assertThat(gate.outstanding()).isZero();
  }

  @Test
  void beforeSendOutsideAGatedCallDoesNothing() {
    GatedCall.beforeSend();
    assertThat(gate.admissions()).isEmpty();
  }
}
