package io.backpressure.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.backpressure.core.Admission;
import io.backpressure.core.AdmissionRequest;
import io.backpressure.core.Cost;
import io.backpressure.core.ManualClock;
import io.backpressure.core.Policy;
import io.backpressure.core.RejectReason;
import io.backpressure.core.feedback.FeedbackState;
import io.backpressure.core.feedback.ProviderSignal;
import io.backpressure.core.feedback.ProviderSignals;
import io.backpressure.core.testing.GeminiAnswers;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Two gates on one Redis target (two connections, as two worker processes have): a Gemini 429 that
 * one of them hears holds the other too, a {@code RetryInfo} of 7 s as no call for 7 s, a per-day
 * {@code QuotaFailure} as a refusal until the next midnight Pacific. The caller's virtual clock is
 * the time source. The in-memory twin is {@code ProviderPauseTest}.
 */
class ProviderPauseSharedTest {
  /** 08:00 Pacific (PST) on 1 December 2026; the next midnight Pacific is 2026-12-02T08:00Z. */
  private static final Instant NOW = Instant.parse("2026-12-01T16:00:00Z");

  private static final Policy POLICY =
      Policy.builder("gemini/my-project")
          .requestsPerSecond(100)
          .tokensPerSecond(100_000)
          .priority("P1", 1)
          .build();

  private final ManualClock clock =
      new ManualClock(NOW.getEpochSecond() * 1_000_000_000L + NOW.getNano());
  private final RedisGateConfig config =
      TestRedis.shared().config().policy(POLICY).timeSource(TimeSource.caller(clock)).build();
  private final RedisGate hearsThe429 = RedisGate.connect(config);
  private final RedisGate other = RedisGate.connect(config);

  @AfterEach
  void close() {
    hearsThe429.close();
    other.close();
  }

  /** OpenAI's requests-per-day 429, with the retry-after of 16 hours a spent day gives. */
  private static final String OPENAI_PER_DAY =
      "{\"error\":{\"message\":\"Rate limit reached for gpt-4o-mini in organization org-abc"
          + " on requests per day (RPD): Limit 200, Used 200, Requested 1.\",\"type\":\"requests\","
          + "\"param\":null,\"code\":\"rate_limit_exceeded\"}}";

  /** Anthropic's reached usage limit, which comes back at the next midnight Pacific, in UTC. */
  private static final String ANTHROPIC_USAGE_LIMIT =
      "{\"type\":\"error\",\"error\":{\"type\":\"invalid_request_error\",\"message\":"
          + "\"You have reached your specified API usage limits. You will regain access on"
          + " 2026-12-02 at 08:00 UTC.\"}}";

  private Admission admit(RedisGate gate) {
    return gate.admit(
        new AdmissionRequest("acme", "P1", Cost.requests(1).tokens(10), null, null, null));
  }

  @Test
  void aRetryInfoHeardByOneGateHoldsTheOtherForItsSevenSeconds() {
    assertThat(admit(other)).isInstanceOf(Admission.Admitted.class);

    hearsThe429.feedback(
        null, ProviderSignals.parse(429, Map.of(), GeminiAnswers.perMinuteRequests("7s"), NOW));

    assertThat(
            other.admit(
                new AdmissionRequest("acme", "P1", Cost.requests(1).tokens(10), null, null, null)
                    .withMaxWait(Duration.ofSeconds(1))))
        .as("a call that may wait 1 s expires at once")
        .isInstanceOfSatisfying(
            Admission.Expired.class, e -> assertThat(e.turnIn()).isEqualTo(Duration.ofSeconds(7)));
    assertThat(admit(other))
        .isInstanceOfSatisfying(
            Admission.Deferred.class,
            d -> assertThat(d.retryAfter()).isEqualTo(Duration.ofSeconds(7)));
    clock.advance(Duration.ofMillis(6_999));
    assertThat(admit(other)).isInstanceOf(Admission.Deferred.class);
    clock.advance(Duration.ofMillis(1));
    assertThat(admit(other)).isInstanceOf(Admission.Admitted.class);
  }

  /**
   * OpenAI's requests per day heard by one gate refuses the other until its retry-after, and
   * Anthropic's usage limit until the instant its message names; neither cuts an effective cap.
   */
  @Test
  void aDailyLimitOrAUsageLimitHeardByOneGateRefusesTheOtherAndCutsNoCap() {
    for (ProviderSignal stop :
        List.of(
            ProviderSignals.parse(
                429, Map.of("retry-after", List.of("57600")), OPENAI_PER_DAY, NOW),
            ProviderSignals.parse(400, Map.of(), ANTHROPIC_USAGE_LIMIT, NOW))) {
      hearsThe429.feedback(null, stop);

      assertThat(admit(other))
          .isInstanceOfSatisfying(
              Admission.Rejected.class,
              r -> {
                assertThat(r.reason()).isEqualTo(RejectReason.LIMIT_REACHED);
                assertThat(r.resetAt()).isEqualTo(Instant.parse("2026-12-02T08:00:00Z"));
              });
      FeedbackState state = other.feedbackState().orElseThrow();
      assertThat(state.decreases()).isZero();
      state
          .dimensions()
          .forEach((name, d) -> assertThat(d.effective()).as(name).isEqualTo(d.configured()));
    }
  }

  @Test
  void aPerDayQuotaFailureHeardByOneGateRefusesTheOtherUntilMidnightPacific() {
    hearsThe429.feedback(
        null, ProviderSignals.parse(429, Map.of(), GeminiAnswers.perDayRequests(), NOW));

    assertThat(admit(other))
        .isInstanceOfSatisfying(
            Admission.Rejected.class,
            r -> {
              assertThat(r.reason()).isEqualTo(RejectReason.LIMIT_REACHED);
              assertThat(r.resetAt()).isEqualTo(Instant.parse("2026-12-02T08:00:00Z"));
            });
    clock.advance(Duration.ofHours(16));
    assertThat(admit(other)).isInstanceOf(Admission.Admitted.class);
  }
}
