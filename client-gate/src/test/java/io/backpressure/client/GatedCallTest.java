package io.backpressure.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.backpressure.client.test.TestGates;
import io.backpressure.core.Cost;
import io.backpressure.core.Dimension;
import io.backpressure.core.InMemoryGate;
import io.backpressure.core.ManualClock;
import io.backpressure.core.Policy;
import io.backpressure.core.RejectReason;
import io.backpressure.core.testing.RecordingGate;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicInteger;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Test;

class GatedCallTest {
  private final ManualClock clock = new ManualClock();
  private final RecordingGate gate =
      new RecordingGate(
          InMemoryGate.create(
              Policy.builder("openai/gpt-4o")
                  .dimension("requests", 1, 1)
                  .tokensPerSecond(1_000)
                  .priority("P1", 0.5)
                  .priority("P2", 0.5)
                  .build(),
              clock));
  private final GatedCall gated = GatedCall.of(gate);
  private final GateContext acme = GateContext.of("acme", "P1");
  private final AtomicInteger calls = new AtomicInteger();

  private String reply() {
    calls.incrementAndGet();
    return "reply";
  }

  /**
   * A call of 1 request and 10 tokens through {@code through} whose provider takes {@code took} on
   * the clock and answers 429; its reply, had it one, would report the same usage.
   */
  private ThrowingCallable rateLimitedAfter(GatedCall through, GateContext context, Duration took) {
    return () ->
        through.call(
            context,
            Cost.requests(1).tokens(10),
            null,
            () -> {
              calls.incrementAndGet();
              clock.advance(took);
              throw new RateLimitException();
            },
            r -> Cost.requests(1).tokens(10));
  }

  @Test
  void runsAnAdmittedCallAndReleasesItsTrueUsage() {
    String reply =
        gated.call(
            acme,
            Cost.requests(1).tokens(100),
            50L,
            this::reply,
            r -> Cost.requests(1).tokens(180));

    assertThat(reply).isEqualTo("reply");
    assertThat(gate.requests())
        .singleElement()
        .satisfies(r -> assertThat(r.maxTokens()).isEqualTo(50L));
    assertThat(gate.releasedWith()).containsExactly(Cost.requests(1).tokens(180));
    assertThat(gated.insideActivity()).isFalse();
  }

  @Test
  void aCallThatThrowsIsReleasedWithNoTokensAndItsFailureSurfaces() {
    assertThatThrownBy(
            () ->
                gated.call(
                    acme,
                    Cost.requests(1).tokens(100),
                    null,
                    () -> {
                      throw new IOException("connection reset");
                    },
                    r -> Cost.requests(1).tokens(1)))
        .isInstanceOf(IllegalStateException.class)
        .hasCauseInstanceOf(IOException.class);
    assertThat(gate.releasedWith()).containsExactly(Cost.requests(1).tokens(0));
  }

  @Test
  void aReplyWithoutUsageReleasesWhatWasDebited() {
    gated.call(acme, Cost.requests(1).tokens(100), null, this::reply, r -> null);

    assertThat(gate.releasedWith()).containsExactly(Cost.requests(1).tokens(100));
  }

  @Test
  void aDeferralThrowsBeforeTheCallCarryingDeltaAndBooking() {
    gated.call(
        acme, Cost.requests(1).tokens(10), null, this::reply, r -> Cost.requests(1).tokens(10));

    assertThatThrownBy(
            () ->
                gated.call(
                    acme,
                    Cost.requests(1).tokens(10),
                    null,
                    this::reply,
                    r -> Cost.requests(1).tokens(10)))
        .isInstanceOfSatisfying(
            DeferredException.class,
            e -> {
              assertThat(e.retryAfter()).isPositive().isLessThanOrEqualTo(Duration.ofSeconds(1));
              assertThat(e.booking()).isNotEmpty();
              assertThat(e.target()).isEqualTo(gated.gate().target());
              assertThat(e)
                  .hasMessageContaining(
                      "deferred by the admission gate of " + gated.gate().target() + " for");
            });
    assertThat(calls).hasValue(1);
  }

  @Test
  void aTurnPastTheWaitLimitExpiresAtOnce() {
    gated.call(
        acme, Cost.requests(1).tokens(10), null, this::reply, r -> Cost.requests(1).tokens(10));

    assertThatThrownBy(
            () ->
                gated.call(
                    acme.withMaxWait(Duration.ofMillis(10)),
                    Cost.requests(1).tokens(10),
                    null,
                    this::reply,
                    r -> Cost.requests(1).tokens(10)))
        .isInstanceOfSatisfying(
            ExpiredException.class,
            e -> assertThat(e.turnIn()).isGreaterThan(Duration.ofMillis(10)));
    assertThat(calls).hasValue(1);
  }

  @Test
  void anUnknownClassIsRejectedNamingIt() {
    assertThatThrownBy(
            () ->
                gated.call(
                    GateContext.of("acme", "P7"),
                    Cost.requests(1).tokens(10),
                    null,
                    this::reply,
                    r -> Cost.requests(1).tokens(10)))
        .isInstanceOfSatisfying(
            RejectedException.class,
            e -> assertThat(e.reason()).isEqualTo(RejectReason.UNKNOWN_PRIORITY))
        .hasMessageContaining("P7");
    assertThat(calls).hasValue(0);
  }

  @Test
  void aMonthlyLimitReachedIsRejectedWithTheFirstOfTheNextMonthInItsZoneAsItsReset() {
    // 2026-03-31 20:00 in Tokyo: the month ends at midnight there, 15:00 UTC.
    Instant evening = Instant.parse("2026-03-31T11:00:00Z");
    Instant nextMonth = Instant.parse("2026-03-31T15:00:00Z");
    GatedCall monthly =
        GatedCall.of(
            InMemoryGate.create(
                Policy.builder("openai/gpt-4o")
                    .tokensPerSecond(1_000)
                    .priority("P1", 1)
                    .perMonth(Dimension.TOKENS, 100)
                    .timeZone("Asia/Tokyo")
                    .build(),
                clock,
                new ManualClock(evening.getEpochSecond() * 1_000_000_000L)));
    assertThat(
            monthly.call(
                acme, Cost.none().tokens(80), null, this::reply, r -> Cost.none().tokens(80)))
        .isEqualTo("reply");
    assertThatThrownBy(
            () ->
                monthly.call(
                    acme, Cost.none().tokens(30), null, this::reply, r -> Cost.none().tokens(30)))
        .isInstanceOfSatisfying(
            RejectedException.class,
            e -> {
              assertThat(e.reason()).isEqualTo(RejectReason.LIMIT_REACHED);
              assertThat(e.resetAt()).isEqualTo(nextMonth);
            })
        .hasMessageContaining("dimensions.tokens.per_month")
        .hasMessageEndingWith("; resets at 2026-03-31T15:00:00Z");
    assertThat(calls).hasValue(1);
  }

  @Test
  void aUsageTheGateRefusesIsReplacedByTheDebitedCostWithoutThrowing() {
    String reply =
        gated.call(
            acme,
            Cost.requests(1).tokens(100),
            null,
            this::reply,
            r -> Cost.requests(1).with("gpus", 1));

    assertThat(reply).isEqualTo("reply");
    assertThat(gate.releasedWith())
        .containsExactly(Cost.requests(1).with("gpus", 1), Cost.requests(1).tokens(100));
  }

  @Test
  void theRetryWithTheBookingRedeemsItsPlace() {
    gated.call(
        acme, Cost.requests(1).tokens(10), null, this::reply, r -> Cost.requests(1).tokens(10));
    DeferredException deferred = null;
    try {
      gated.admit(acme, Cost.requests(1).tokens(10), null);
    } catch (DeferredException e) {
      deferred = e;
    }
    assertThat(deferred).isNotNull();
    clock.advance(deferred.retryAfter());

    var grant =
        gated.admit(acme.withBooking(deferred.booking()), Cost.requests(1).tokens(10), null);

    assertThat(grant.tenant()).isEqualTo("acme");
    assertThat(gate.requests().get(2).booking()).isEqualTo(deferred.booking());
  }

  /** What LangChain4j and the official SDKs throw on a 429, recognised by its class's name. */
  static final class RateLimitException extends RuntimeException {
    RateLimitException() {
      super("429 Too Many Requests");
    }
  }

  /**
   * A 429 inside the call is not the caller's: the gate hears it and the call asks again, which the
   * gate defers (its cooldown), so the caller sees a deferral and the provider one request.
   *
   * <p>Mutation tried: the 429 rethrown as it is (the caller then sees RateLimitException).
   */
  @Test
  void a429InsideTheCallBecomesADeferralThroughTheGate() {
    GatedCall roomy = GatedCall.of(TestGates.recording("openai/gpt-4o", 100, 100_000, clock));
    RecordingGate recording = (RecordingGate) roomy.gate();

    assertThatThrownBy(rateLimitedAfter(roomy, acme, Duration.ZERO))
        .isInstanceOfSatisfying(
            DeferredException.class, e -> assertThat(e.retryAfter()).isPositive());

    assertThat(calls).hasValue(1);
    assertThat(recording.signals())
        .singleElement()
        .satisfies(s -> assertThat(s.status()).isEqualTo(429));
    assertThat(recording.releasedWith()).containsExactly(Cost.requests(1).tokens(0));
    assertThat(recording.outstanding()).isZero();
  }

  /**
   * The context's deadline reaches the gate, and the ask after a 429 that came 700 ms later carries
   * what is left of it; a 429 after the whole deadline is not asked for again, nor sent. Mutation
   * tried: the resend carries the first deadline.
   */
  @Test
  void theContextsDeadlineReachesTheGateAndTheAskAfterA429CarriesWhatIsLeft() {
    GatedCall roomy =
        GatedCall.builder(TestGates.recording("openai/gpt-4o", 100, 100_000, clock))
            .ticker(clock)
            .build();
    RecordingGate recording = (RecordingGate) roomy.gate();
    GateContext within5s = acme.withDeadline(Duration.ofSeconds(5));

    assertThatThrownBy(rateLimitedAfter(roomy, within5s, Duration.ofMillis(700)))
        .isInstanceOf(DeferredException.class);
    assertThat(recording.requests()).hasSize(2);
    assertThat(recording.requests().get(0).deadline()).isEqualTo(Duration.ofSeconds(5));
    assertThat(recording.requests().get(1).deadline()).isEqualTo(Duration.ofMillis(4_300));

    clock.advance(Duration.ofSeconds(10));
    assertThatThrownBy(rateLimitedAfter(roomy, within5s, Duration.ofSeconds(6)))
        .isInstanceOfSatisfying(
            ExpiredException.class, e -> assertThat(e).hasMessageContaining("deadline passed"));
    assertThat(recording.requests()).hasSize(3);
    assertThat(calls).hasValue(2);
    assertThat(recording.outstanding()).isZero();
  }

  /**
   * A call that came with a booking redeems it at its first admission; after a 429 it asks again as
   * a first attempt, and the deferral it gets carries a booking of its own.
   */
  @Test
  void theAskAfterA429PresentsNoBookingItsFirstAdmissionRedeemed() {
    gated.call(
        acme, Cost.requests(1).tokens(10), null, this::reply, r -> Cost.requests(1).tokens(10));
    DeferredException deferred = null;
    try {
      gated.admit(acme, Cost.requests(1).tokens(10), null);
    } catch (DeferredException e) {
      deferred = e;
    }
    assertThat(deferred).isNotNull();
    clock.advance(deferred.retryAfter());
    String booking = deferred.booking();

    assertThatThrownBy(rateLimitedAfter(gated, acme.withBooking(booking), Duration.ZERO))
        .isInstanceOfSatisfying(
            DeferredException.class, e -> assertThat(e.booking()).isNotEqualTo(booking));

    assertThat(gate.requests()).hasSize(4);
    assertThat(gate.requests().get(2).booking()).isEqualTo(booking);
    assertThat(gate.requests().get(3).booking()).isNull();
    assertThat(gate.outstanding()).isZero();
  }

  @Test
  void aFailureThatIsNoRateLimitSurfacesAsItIs() {
    assertThatThrownBy(
            () ->
                gated.call(
                    acme,
                    Cost.requests(1).tokens(10),
                    null,
                    () -> {
                      throw new IllegalArgumentException("bad prompt");
                    },
                    r -> Cost.requests(1).tokens(10)))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(gate.signals()).isEmpty();
  }

  @Test
  void aWaitBoundOutOfRangeIsRefusedNamingIt() {
    assertThatThrownBy(() -> GatedCall.builder(gate).maxWait(Duration.ZERO))
        .hasMessage("maxWait must be in (0, 1h], got PT0S");
    assertThatThrownBy(() -> GatedCall.builder(gate).maxWait(Duration.ofHours(2)))
        .hasMessage("maxWait must be in (0, 1h], got PT2H");
  }
}
