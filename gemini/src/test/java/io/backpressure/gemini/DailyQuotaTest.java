package io.backpressure.gemini;

import static io.backpressure.client.test.DailyQuotas.assertNothingCut;
import static io.backpressure.client.test.DailyQuotas.assertStopped;
import static org.assertj.core.api.Assertions.assertThat;

import com.google.genai.Client;
import com.google.genai.types.GenerateContentConfig;
import io.backpressure.client.GateContext;
import io.backpressure.client.ProviderFeedback;
import io.backpressure.client.test.DailyQuotas;
import io.backpressure.core.InMemoryGate;
import io.backpressure.core.ManualClock;
import io.backpressure.mock.DailyCaps;
import io.backpressure.mock.MockProvider;
import io.backpressure.mock.RequestRecord;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
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
   * How near the gate's reset is to the next midnight Pacific: the parser reads it after the answer
   * arrived, on the wall clock, which this test's clock started from.
   */
  private static final Duration NEAR = Duration.ofSeconds(10);

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
    InMemoryGate gate = DailyQuotas.gate("gemini/my-project", clock);
    GenerateContentConfig generation = GenerateContentConfig.builder().maxOutputTokens(40).build();
    try (MockProvider provider = DailyQuotas.mock(DailyCaps.utc(1L, null).in(PACIFIC), clock);
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
      assertStopped(
          () -> client.models.generateContent(MODEL, "second", generation), midnight, NEAR);
      assertThat(provider.records())
          .extracting(RequestRecord::status)
          .as("the refused call is not sent again")
          .containsExactly(200, 429);
      now();
      assertStopped(
          () -> client.models.generateContent(MODEL, "third", generation), midnight, NEAR);
      assertThat(provider.records()).as("refused before it is sent").hasSize(2);
      assertNothingCut(gate.feedbackState());

      clock.set(epochNanos(midnight.plusSeconds(5)));
      client.models.generateContent(MODEL, "the next day", generation);
      assertThat(provider.records()).extracting(RequestRecord::status).endsWith(200);
    }
  }
}
