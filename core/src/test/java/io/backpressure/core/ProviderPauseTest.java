package io.backpressure.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.backpressure.core.feedback.ProviderSignal;
import io.backpressure.core.feedback.ProviderSignals;
import io.backpressure.core.testing.GeminiAnswers;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * What the provider says about when to call again, obeyed by admission in virtual time: the Gemini
 * API's {@code RetryInfo} as a pause of the whole target, its per-day {@code QuotaFailure} as a
 * refusal until the next midnight Pacific. The Redis twin is {@code ProviderPauseSharedTest}.
 */
class ProviderPauseTest {
  /** 08:00 Pacific (PST) on 1 December 2026; the next midnight Pacific is 2026-12-02T08:00Z. */
  private static final Instant NOW = Instant.parse("2026-12-01T16:00:00Z");

  private static final Instant MIDNIGHT_PACIFIC = Instant.parse("2026-12-02T08:00:00Z");

  private final ManualClock clock =
      new ManualClock(NOW.getEpochSecond() * 1_000_000_000L + NOW.getNano());
  private final InMemoryGate gate =
      InMemoryGate.create(
          Policy.builder("gemini/my-project")
              .requestsPerSecond(100)
              .tokensPerSecond(100_000)
              .priority("P1", 1)
              .build(),
          clock,
          clock);

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

  private Admission admit() {
    return gate.admit(
        new AdmissionRequest("acme", "P1", Cost.requests(1).tokens(10), null, null, null));
  }

  private static ProviderSignal gemini429(String body) {
    return ProviderSignals.parse(429, Map.of(), body, NOW);
  }

  /** Mutation tried: admission not reading the pause (the next call is admitted at once). */
  @Test
  void aRetryInfoOfSevenSecondsSendsNothingForSevenSeconds() {
    assertThat(admit()).isInstanceOf(Admission.Admitted.class);

    gate.feedback(null, gemini429(GeminiAnswers.perMinuteRequests("7s")));

    assertThat(
            gate.admit(
                new AdmissionRequest("acme", "P1", Cost.requests(1).tokens(10), null, null, null)
                    .withMaxWait(Duration.ofSeconds(1))))
        .as("a call that may wait 1 s expires at once")
        .isInstanceOfSatisfying(
            Admission.Expired.class, e -> assertThat(e.turnIn()).isEqualTo(Duration.ofSeconds(7)));
    assertThat(admit())
        .isInstanceOfSatisfying(
            Admission.Deferred.class,
            d -> assertThat(d.retryAfter()).isEqualTo(Duration.ofSeconds(7)));
    clock.advance(Duration.ofMillis(6_999));
    assertThat(admit())
        .isInstanceOfSatisfying(
            Admission.Deferred.class,
            d -> assertThat(d.retryAfter()).isEqualTo(Duration.ofMillis(1)));
    clock.advance(Duration.ofMillis(1));
    assertThat(admit()).isInstanceOf(Admission.Admitted.class);
  }

  @Test
  void aPerDayQuotaFailureRefusesEveryCallUntilTheNextMidnightPacific() {
    gate.feedback(null, gemini429(GeminiAnswers.perDayRequests()));

    assertThat(admit())
        .isInstanceOfSatisfying(
            Admission.Rejected.class,
            r -> {
              assertThat(r.reason()).isEqualTo(RejectReason.LIMIT_REACHED);
              assertThat(r.resetAt()).isEqualTo(MIDNIGHT_PACIFIC);
              assertThat(r.message()).contains("gemini/my-project").contains("quota is spent");
            });
    clock.advance(Duration.ofHours(16).minusMillis(1));
    assertThat(admit()).isInstanceOf(Admission.Rejected.class);
    clock.advance(Duration.ofMillis(1));
    assertThat(admit()).isInstanceOf(Admission.Admitted.class);
  }

  /**
   * OpenAI's requests per day and Anthropic's usage limit refuse every call until the reset they
   * give, and teach the effective caps nothing: each stays the configured cap.
   */
  @Test
  void aDailyLimitOrAUsageLimitRefusesUntilItsResetAndCutsNoCap() {
    for (ProviderSignal stop :
        List.of(
            ProviderSignals.parse(
                429, Map.of("retry-after", List.of("57600")), OPENAI_PER_DAY, NOW),
            ProviderSignals.parse(400, Map.of(), ANTHROPIC_USAGE_LIMIT, NOW))) {
      InMemoryGate fresh =
          InMemoryGate.create(
              Policy.builder("openai/gpt-4o-mini")
                  .requestsPerSecond(100)
                  .tokensPerSecond(100_000)
                  .priority("P1", 1)
                  .build(),
              clock,
              clock);
      fresh.feedback(null, stop);

      assertThat(
              fresh.admit(
                  new AdmissionRequest(
                      "acme", "P1", Cost.requests(1).tokens(10), null, null, null)))
          .isInstanceOfSatisfying(
              Admission.Rejected.class,
              r -> {
                assertThat(r.reason()).isEqualTo(RejectReason.LIMIT_REACHED);
                assertThat(r.resetAt()).isEqualTo(MIDNIGHT_PACIFIC);
              });
      assertThat(fresh.feedbackState().decreases()).isZero();
      fresh
          .feedbackState()
          .dimensions()
          .forEach((name, d) -> assertThat(d.effective()).as(name).isEqualTo(d.configured()));
    }
  }

  /** A later retry-after moves the pause later; an earlier one leaves it. */
  @Test
  void aPauseOnlyMovesLater() {
    gate.feedback(null, gemini429(GeminiAnswers.perMinuteRequests("7s")));
    gate.feedback(null, gemini429(GeminiAnswers.perMinuteRequests("2s")));

    assertThat(admit())
        .isInstanceOfSatisfying(
            Admission.Deferred.class,
            d -> assertThat(d.retryAfter()).isEqualTo(Duration.ofSeconds(7)));
  }
}
