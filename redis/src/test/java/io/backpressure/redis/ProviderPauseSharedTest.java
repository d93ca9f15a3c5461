package io.backpressure.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.backpressure.core.Admission;
import io.backpressure.core.AdmissionRequest;
import io.backpressure.core.Cost;
import io.backpressure.core.ManualClock;
import io.backpressure.core.Policy;
import io.backpressure.core.RejectReason;
import io.backpressure.core.feedback.ProviderSignals;
import io.backpressure.core.testing.GeminiAnswers;
import java.time.Duration;
import java.time.Instant;
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
