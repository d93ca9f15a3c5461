package io.backpressure.anthropic;

import static io.backpressure.client.test.DailyQuotas.assertNothingCut;
import static io.backpressure.client.test.DailyQuotas.assertStopped;
import static org.assertj.core.api.Assertions.assertThat;

import com.anthropic.client.AnthropicClient;
import com.anthropic.models.messages.MessageCreateParams;
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
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;

/**
 * Anthropic's usage limit reached, through the real anthropic-java client and the mock provider:
 * the 400 that says when access comes back reaches the gate as a stop until that instant, and the
 * caller as the gate's terminal refusal with that instant, on the call that met it (not as the
 * SDK's {@code BadRequestException}) as on the next ones, which are refused before they are sent;
 * no effective cap is cut, and the stop ends at the instant the message named.
 */
class DailyQuotaTest {

  private static final String MODEL = "claude-haiku-4-5";

  /**
   * The gate's and the mock's clock, kept at the wall clock's time until the test moves it past the
   * reset: the parser reads the instant the message names against the moment the answer arrives.
   */
  private final ManualClock clock = new ManualClock(epochNanos(Instant.now()));

  private static long epochNanos(Instant at) {
    return at.getEpochSecond() * 1_000_000_000L + at.getNano();
  }

  /** Brings the clock up to the wall clock's time, which a slow machine has moved on. */
  private void now() {
    clock.set(Math.max(clock.epochNanos(), epochNanos(Instant.now())));
  }

  private static MessageCreateParams params() {
    return MessageCreateParams.builder()
        .model(MODEL)
        .maxTokens(40)
        .addUserMessage("x".repeat(70))
        .build();
  }

  /**
   * Mutations tried: the parser reading the usage limit's 400 as a bad request (the next call is
   * sent, and meets the 400 again); the gated transport handing the 400 to the SDK (the first
   * refusal is a {@code BadRequestException}).
   */
  @Test
  void aReachedUsageLimitStopsTheTargetUntilAccessComesBack() throws Exception {
    InMemoryGate gate = DailyQuotas.gate("anthropic/claude-haiku", clock);
    try (MockProvider provider = DailyQuotas.mock(DailyCaps.utc(1L, null), clock);
        GateContext.Scope scope = GateContext.of("acme", "P1").open()) {
      AnthropicClient client =
          GatedAnthropic.builder()
              .gate(gate)
              .feedback(ProviderFeedback.TO_CALLS_GATE)
              .clientOptions(
                  options ->
                      options
                          .baseUrl(provider.url())
                          .apiKey("sk-ant-test")
                          .timeout(Duration.ofSeconds(20)))
              .build();
      try {
        Instant midnight =
            clock
                .asClock()
                .instant()
                .atZone(ZoneOffset.UTC)
                .toLocalDate()
                .plusDays(1)
                .atStartOfDay(ZoneOffset.UTC)
                .toInstant();
        now();
        client.messages().create(params());

        now();

        assertStopped(() -> client.messages().create(params()), midnight, Duration.ofSeconds(10));
        assertThat(provider.records())
            .extracting(RequestRecord::status)
            .as("the call that met the limit is not sent again")
            .containsExactly(200, 400);
        now();
        assertStopped(() -> client.messages().create(params()), midnight, Duration.ofSeconds(10));
        assertThat(provider.records())
            .extracting(RequestRecord::status)
            .as("the third call is refused before it is sent")
            .containsExactly(200, 400);
        assertNothingCut(gate.feedbackState());

        clock.set(epochNanos(midnight.plusSeconds(5)));
        client.messages().create(params());
        assertThat(provider.records()).extracting(RequestRecord::status).endsWith(200);
      } finally {
        client.close();
      }
    }
  }
}
