package io.backpressure.client.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.backpressure.client.RejectedException;
import io.backpressure.core.InMemoryGate;
import io.backpressure.core.ManualClock;
import io.backpressure.core.Policy;
import io.backpressure.core.RejectReason;
import io.backpressure.core.feedback.FeedbackState;
import io.backpressure.mock.CompletionTokens;
import io.backpressure.mock.DailyCaps;
import io.backpressure.mock.MockProvider;
import io.backpressure.mock.MockProviderConfig;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;

/**
 * What the provider modules' tests of a spent daily quota share: the gate a provider's stop
 * reaches, a mock provider that counts its days on the same clock, and what they check of the stop
 * — the call refused before it is sent, with the reset, and no effective cap cut. For tests only.
 */
public final class DailyQuotas {

  private DailyQuotas() {}

  /**
   * An in-memory gate of {@code target} with {@code clock} as its ticker and its calendar: 10
   * requests and 100 000 tokens a second, far above what the tests send, one priority {@code P1}.
   */
  public static InMemoryGate gate(String target, ManualClock clock) {
    Policy policy =
        Policy.builder(target)
            .requestsPerSecond(10)
            .tokensPerSecond(100_000)
            .priority("P1", 1)
            .build();
    return InMemoryGate.create(policy, clock, clock);
  }

  /**
   * A mock provider that answers at once with 25 completion tokens and counts {@code daily}'s days
   * on {@code clock}'s calendar.
   */
  public static MockProvider mock(DailyCaps daily, ManualClock clock) throws IOException {
    return MockProvider.start(
        MockProviderConfig.builder()
            .latencyMs(0, 0)
            .completionTokens(new CompletionTokens.Fixed(25))
            .wallClock(clock.asClock())
            .daily(daily)
            .build());
  }

  /**
   * Asserts that the gate refuses {@code call} as a reached limit, until exactly {@code resetAt}.
   */
  public static void assertStopped(ThrowingCallable call, Instant resetAt) {
    assertStopped(call, resetAt, Duration.ZERO);
  }

  /**
   * Asserts that the gate refuses {@code call} as a reached limit, until {@code resetAt} give or
   * take {@code tolerance} (a reset read against the wall clock).
   */
  public static void assertStopped(ThrowingCallable call, Instant resetAt, Duration tolerance) {
    assertThatThrownBy(call)
        .isInstanceOfSatisfying(
            RejectedException.class,
            e -> {
              assertThat(e.reason()).isEqualTo(RejectReason.LIMIT_REACHED);
              assertThat(e.resetAt())
                  .isCloseTo(resetAt, within(tolerance.toNanos(), ChronoUnit.NANOS));
            });
  }

  /** Asserts that no effective cap was cut: the stop taught the per-second caps nothing. */
  public static void assertNothingCut(FeedbackState state) {
    assertThat(state.decreases()).isZero();
    state
        .dimensions()
        .forEach(
            (name, dimension) ->
                assertThat(dimension.effective()).as(name).isEqualTo(dimension.configured()));
  }
}
