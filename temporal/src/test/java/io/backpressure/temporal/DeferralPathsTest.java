package io.backpressure.temporal;

import static org.assertj.core.api.Assertions.assertThat;

import io.backpressure.core.Admission;
import io.backpressure.core.Dimension;
import io.backpressure.core.InMemoryGate;
import io.backpressure.core.ManualClock;
import io.backpressure.core.Policy;
import io.backpressure.core.RejectReason;
import io.backpressure.core.Ticker;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Each way of waiting out a deferral carries the booking to the re-run and honours its bound. */
class DeferralPathsTest extends HarnessTest {
  private static String run(
      RecordingGate gate,
      BackpressureInterceptor interceptor,
      Class<? extends ChatWorkflow> workflow,
      ChatInput input,
      Duration maxWait) {
    String queue = "q-" + UUID.randomUUID();
    ActivityGate activityGate = ActivityGate.builder(gate).maxWait(maxWait).build();
    harness.start(
        queue,
        interceptor,
        2,
        new ChatActivitiesImpl(activityGate, new Probe(), Duration.ZERO),
        workflow);
    return harness.workflow(queue, "wf-" + UUID.randomUUID()).chat(input, maxWait.toMillis());
  }

  private static String run(RecordingGate gate, DeferralWay way, Duration maxWait) {
    return run(
        gate,
        way.interceptor(maxWait),
        way.workflow(Workflows.Helper.class, Workflows.Plain.class),
        ChatInput.ok("a", "P1"),
        maxWait);
  }

  private static void assertDeferredThenRedeemed(RecordingGate gate) {
    List<RecordingGate.Attempt> attempts = gate.attempts;
    assertThat(attempts).hasSize(2);
    assertThat(attempts.get(0).admission()).isInstanceOf(Admission.Deferred.class);
    assertThat(attempts.get(0).request().booking()).isNull();
    String booking = ((Admission.Deferred) attempts.get(0).admission()).booking();
    assertThat(attempts.get(1).request().booking()).isEqualTo(booking);
    assertThat(attempts.get(1).admission()).isInstanceOf(Admission.Admitted.class);
    assertThat(attempts.get(1).atMillis() - attempts.get(0).atMillis()).isGreaterThanOrEqualTo(300);
  }

  @ParameterizedTest
  @EnumSource(DeferralWay.class)
  void eachWaySleepsAndPresentsTheBooking(DeferralWay way) {
    RecordingGate gate = new RecordingGate(ScriptedGate.deferOnce("a", Duration.ofMillis(300)));
    assertThat(run(gate, way, Duration.ofSeconds(10))).isEqualTo("ok:a");
    assertDeferredThenRedeemed(gate);
  }

  @Test
  void tenantAndClassComeFromTheTemporalPriority() {
    RecordingGate gate = new RecordingGate(ScriptedGate.deferOnce("nobody", Duration.ofMillis(1)));
    String reply =
        run(
            gate,
            null,
            Workflows.ByPriority.class,
            ChatInput.ok("acme", "ignored"),
            Duration.ofSeconds(10));
    assertThat(reply).isEqualTo("ok:priority");
    assertThat(gate.attempts).hasSize(1);
    assertThat(gate.attempts.get(0).request().tenant()).isEqualTo("acme");
    assertThat(gate.attempts.get(0).request().priority()).isEqualTo("P1");
  }

  /**
   * Two deferrals of 100 ms are waited out within the 10 s bound, and the third, of 10 s, would end
   * past it: the call expires at that attempt, without waiting it out. The count holds however late
   * the timers fire, short of 9.8 s late: the third deferral passes the bound once the first two
   * waits are counted, so the count also shows that the waits add up.
   */
  @ParameterizedTest
  @EnumSource(DeferralWay.class)
  void eachWayExpiresAtItsBound(DeferralWay way) {
    Duration bound = Duration.ofSeconds(10);
    RecordingGate gate =
        new RecordingGate(
            ScriptedGate.deferEach("a", Duration.ofMillis(100), Duration.ofMillis(100), bound));
    assertThat(run(gate, way, bound))
        .isEqualTo("failed:" + Backpressure.EXPIRED + ":RETRY_STATE_NON_RETRYABLE_FAILURE");
    assertThat(gate.attempts).hasSize(3);
  }

  @Test
  void serverTimedDeferralsCountAgainstMaximumAttempts() {
    RecordingGate gate = new RecordingGate(ScriptedGate.deferAlways("a", Duration.ofMillis(200)));
    String reply =
        run(
            gate,
            null,
            Workflows.TwoAttempts.class,
            ChatInput.ok("a", "P1"),
            Duration.ofSeconds(10));
    assertThat(reply)
        .isEqualTo("failed:" + Backpressure.DEFERRED + ":RETRY_STATE_MAXIMUM_ATTEMPTS_REACHED");
    assertThat(gate.attempts).hasSize(2);
  }

  @Test
  void aCostThatNeverFitsIsRejectedOnceWithItsReason() {
    RecordingGate gate =
        new RecordingGate(
            InMemoryGate.create(
                Policy.builder("test")
                    .requestsPerSecond(10)
                    .tokensPerSecond(1000)
                    .priority("P1", 1)
                    .build()));
    String reply =
        run(
            gate,
            BackpressureInterceptor.transparent(Duration.ofSeconds(10)),
            Workflows.Plain.class,
            new ChatInput("a", "P1", 5000, "ok"),
            Duration.ofSeconds(10));
    assertThat(reply)
        .isEqualTo("failed:" + Backpressure.REJECTED + ":RETRY_STATE_NON_RETRYABLE_FAILURE");
    assertThat(gate.attempts).hasSize(1);
    assertThat(((Admission.Rejected) gate.attempts.get(0).admission()).reason())
        .isEqualTo(RejectReason.NEVER_FITS);
  }

  @Test
  void aDailyLimitReachedFailsTheCallWithTheNextLocalMidnightAsItsReset() {
    // Noon in New York on 2026-11-01, the day clocks fall back: a 25-hour day, so its end is not
    // its local midnight plus 24 hours.
    Instant noon = Instant.parse("2026-11-01T17:00:00Z");
    Instant nextMidnight = Instant.parse("2026-11-02T05:00:00Z");
    assertThat(nextMidnight.atZone(ZoneId.of("America/New_York")).toLocalDateTime())
        .isEqualTo(LocalDateTime.parse("2026-11-02T00:00"));
    RecordingGate gate =
        new RecordingGate(
            InMemoryGate.create(
                Policy.builder("test")
                    .requestsPerSecond(10)
                    .priority("P1", 1)
                    .perDay(Dimension.REQUESTS, 2)
                    .timeZone("America/New_York")
                    .build(),
                Ticker.system(),
                new ManualClock(noon.getEpochSecond() * 1_000_000_000L)));
    String reply =
        run(
            gate,
            BackpressureInterceptor.transparent(Duration.ofSeconds(10)),
            Workflows.UntilRefused.class,
            ChatInput.ok("a", "P1"),
            Duration.ofSeconds(10));
    assertThat(reply)
        .isEqualTo(
            "2 ok; failed:"
                + Backpressure.LIMIT_REACHED
                + ":RETRY_STATE_NON_RETRYABLE_FAILURE:LIMIT_REACHED:"
                + nextMidnight.toEpochMilli());
    assertThat(gate.attempts).hasSize(3);
    assertThat(gate.attempts.get(2).admission())
        .isEqualTo(
            new Admission.Rejected(
                RejectReason.LIMIT_REACHED,
                "dimensions.requests.per_day = 2 per day holds 2 already and cannot take 1 more"
                    + " before it resets at 2026-11-02T05:00:00Z",
                nextMidnight));
  }

  @Test
  void asynchronousCallersStayAsynchronousUnderTheTransparentInterceptor() {
    RecordingGate gate = new RecordingGate(ScriptedGate.deferOnce("a", Duration.ofMillis(300)));
    String reply =
        run(
            gate,
            BackpressureInterceptor.transparent(Duration.ofSeconds(10)),
            Workflows.TwoAsync.class,
            ChatInput.ok("a", "P1"),
            Duration.ofSeconds(10));
    assertThat(reply).isEqualTo("ok:a,ok:a");
    assertThat(gate.deferrals()).isEqualTo(2);
    assertThat(gate.admitted()).isEqualTo(2);
    // Both first attempts went out before either was deferred back: the calls ran side by side.
    assertThat(gate.attempts.get(0).admission()).isInstanceOf(Admission.Deferred.class);
    assertThat(gate.attempts.get(1).admission()).isInstanceOf(Admission.Deferred.class);
  }
}
