package io.backpressure.eval.real;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

import io.backpressure.core.InMemoryGate;
import io.backpressure.core.Policy;
import io.backpressure.mock.MockProvider;
import io.backpressure.mock.MockProviderConfig;
import io.backpressure.mock.RequestRecord;
import io.backpressure.temporal.ActivityGate;
import io.backpressure.temporal.Backpressure;
import io.temporal.activity.ActivityOptions;
import io.temporal.common.RetryOptions;
import io.temporal.failure.ActivityFailure;
import io.temporal.failure.ApplicationFailure;
import io.temporal.testing.TestActivityEnvironment;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The {@code bp} activity through the gated openai-java client, in Temporal's activity test
 * environment against the mock provider: an admitted call is sent once with the workload's tokens
 * and recorded as one attempt; a deferred one ends the activity with {@code BackpressureDeferred},
 * sends nothing, and is recorded as a deferral.
 */
class OpenAiProviderTest {
  private MockProvider mock;
  private OpenAiProvider provider;
  private TestActivityEnvironment env;
  private Ledger ledger;

  @BeforeEach
  void start() throws Exception {
    mock = MockProvider.start(MockProviderConfig.builder().latencyMs(1, 1).build());
    ledger = new Ledger(Ledger.epochNanos());
    Policy policy = Policy.builder("openai/mock").requestsPerMinute(1).priority("P1", 1.0).build();
    TimedGate timed = new TimedGate(InMemoryGate.create(policy), ledger);
    DeadlineGate deadlines = new DeadlineGate(timed);
    ActivityGate activityGate = ActivityGate.builder(deadlines).waitInPlace(Duration.ZERO).build();
    provider =
        new OpenAiProvider(mock.baseUrl(), activityGate, deadlines, timed, true, false, ledger);
    env = TestActivityEnvironment.newInstance();
    env.registerActivitiesImplementations(
        new UpstreamActivitiesImpl(
            new CallMode.Gated(provider, deadlines, true, false), null, ledger, false));
  }

  @AfterEach
  void stop() {
    env.close();
    provider.close();
    mock.close();
  }

  @Test
  void anAdmittedCallIsSentOnceAndADeferredOneIsNotSentAtAll() {
    UpstreamActivities upstream =
        env.newActivityStub(
            UpstreamActivities.class,
            ActivityOptions.newBuilder()
                // Longer than the second call's turn (60 s at one request a minute), so that its
                // deadline lets one ask defer it.
                .setStartToCloseTimeout(Duration.ofMinutes(2))
                .setRetryOptions(RetryOptions.newBuilder().setMaximumAttempts(1).build())
                .build());

    assertThat(upstream.call(call("q/0"))).isEqualTo(200);
    assertThatThrownBy(() -> upstream.call(call("q/1")))
        .isInstanceOf(ActivityFailure.class)
        .cause()
        .isInstanceOfSatisfying(
            ApplicationFailure.class,
            failure -> assertThat(failure.getType()).isEqualTo(Backpressure.DEFERRED));

    List<RequestRecord> sent = mock.records();
    assertThat(sent).hasSize(1);
    assertThat(sent.get(0).callId()).isEqualTo("q/0");
    assertThat(sent.get(0).tenant()).isEqualTo("acme");
    assertThat(sent.get(0).status()).isEqualTo(200);
    assertThat(sent.get(0).promptTokens()).isEqualTo(100);
    assertThat(sent.get(0).completionTokens()).isEqualTo(50);

    Ledger.Snapshot seen = ledger.snapshot();
    assertThat(seen.attempts()).hasSize(1);
    assertThat(seen.attempts().get(0).ok()).isTrue();
    assertThat(seen.admissionNanos()).hasSize(2);
    assertThat(seen.sends())
        .as("the admitted call's send, timed from its admission")
        .singleElement()
        .satisfies(
            send -> {
              assertThat(send.callId()).isEqualTo("q/0");
              assertThat(send.sentNanos()).isGreaterThanOrEqualTo(send.admittedNanos());
              assertThat(send.sentNanos()).isEqualTo(seen.attempts().get(0).startNanos());
            });
    assertThat(seen.calls())
        .extracting(
            Ledger.Call::callId,
            Ledger.Call::outcome,
            Ledger.Call::attempts,
            Ledger.Call::deferrals)
        .containsExactly(
            tuple("q/0", Ledger.Outcome.OK, 1, 0), tuple("q/1", Ledger.Outcome.UNFINISHED, 0, 1));
  }

  private static CallInput call(String id) {
    return new CallInput(id, 0, "acme", "P1", System.currentTimeMillis(), 100, 50, null, 0, 0, 0);
  }
}
