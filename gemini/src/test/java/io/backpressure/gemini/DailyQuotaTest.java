package io.backpressure.gemini;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import com.google.genai.Client;
import com.google.genai.types.GenerateContentConfig;
import io.backpressure.client.GateContext;
import io.backpressure.client.ProviderFeedback;
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
import io.backpressure.mock.RequestRecord;
import java.time.Instant;
import java.time.ZoneId;
import java.time.temporal.ChronoUnit;
import org.junit.jupiter.api.Test;

/**
 * The Gemini API's per-day quota spent, through the real google-genai client and the mock provider
 * counting days from midnight Pacific time: the 429's per-day {@code QuotaFailure} reaches the gate
 * as a stop, which refuses the target's calls with the next midnight Pacific as their reset, sends
 * nothing meanwhile and cuts no effective cap; after that midnight the calls go through again.
 */
class DailyQuotaTest {

  private static final String MODEL = "gemini-2.5-flash";
  private static final ZoneId PACIFIC = ZoneId.of("America/Los_Angeles");

  /**
   * The gate's and the mock's clock, kept at the wall clock's time until the test moves it past the
   * reset: the parser reads a per-day quota's reset as the next midnight Pacific after the moment
   * the answer arrives.
   */
  private final ManualClock clock = new ManualClock(epochNanos(Instant.now()));

  private static long epochNanos(Instant at) {
    return at.getEpochSecond() * 1_000_000_000L + at.getNano();
  }

  /** Brings the clock up to the wall clock's time, which a slow machine has moved on. */
  private void now() {
    clock.set(Math.max(clock.epochNanos(), epochNanos(Instant.now())));
  }

  @Test
  void aSpentPerDayQuotaStopsTheTargetUntilMidnightPacific() throws Exception {
    Policy policy =
        Policy.builder("gemini/my-project")
            .requestsPerSecond(10)
            .tokensPerSecond(100_000)
            .priority("P1", 1)
            .build();
    InMemoryGate gate = InMemoryGate.create(policy, clock, clock);
    MockProviderConfig config =
        MockProviderConfig.builder()
            .latencyMs(0, 0)
            .completionTokens(new CompletionTokens.Fixed(25))
            .wallClock(clock.asClock())
            .daily(DailyCaps.utc(1L, null).in(PACIFIC))
            .build();
    GenerateContentConfig generation = GenerateContentConfig.builder().maxOutputTokens(40).build();
    try (MockProvider provider = MockProvider.start(config);
        GateContext.Scope scope = GateContext.of("acme", "P1").open()) {
      Client client =
          GatedGemini.builder()
              .gate(gate)
              .feedback(ProviderFeedback.TO_CALLS_GATE)
              .client(builder -> builder.apiKey("test-key"))
              .httpOptions(options -> options.baseUrl(provider.url()))
              .build();
      Instant start = clock.asClock().instant();
      Instant midnight =
          start.atZone(PACIFIC).toLocalDate().plusDays(1).atStartOfDay(PACIFIC).toInstant();

      now();

      client.models.generateContent(MODEL, "first", generation);
      now();
      assertStopped(() -> client.models.generateContent(MODEL, "second", generation), midnight);
      assertThat(provider.records())
          .extracting(RequestRecord::status)
          .as("the refused call is not sent again")
          .containsExactly(200, 429);
      now();
      assertStopped(() -> client.models.generateContent(MODEL, "third", generation), midnight);
      assertThat(provider.records()).as("refused before it is sent").hasSize(2);
      assertNothingCut(gate.feedbackState());

      clock.set(epochNanos(midnight.plusSeconds(5)));
      client.models.generateContent(MODEL, "the next day", generation);
      assertThat(provider.records()).extracting(RequestRecord::status).endsWith(200);
    }
  }

  /**
   * The reset the gate gives is the next midnight Pacific after the answer arrived, read on the
   * wall clock, which this test's clock started from: within ten seconds of it.
   */
  private static void assertStopped(Runnable call, Instant midnight) {
    assertThatThrownBy(call::run)
        .isInstanceOfSatisfying(
            RejectedException.class,
            e -> {
              assertThat(e.reason()).isEqualTo(RejectReason.LIMIT_REACHED);
              assertThat(e.resetAt()).isCloseTo(midnight, within(10, ChronoUnit.SECONDS));
            });
  }

  private static void assertNothingCut(FeedbackState state) {
    assertThat(state.decreases()).isZero();
    state
        .dimensions()
        .forEach(
            (name, dimension) ->
                assertThat(dimension.effective()).as(name).isEqualTo(dimension.configured()));
  }
}
