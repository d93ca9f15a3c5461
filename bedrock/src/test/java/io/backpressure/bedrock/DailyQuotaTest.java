package io.backpressure.bedrock;

import static io.backpressure.client.test.DailyQuotas.assertNothingCut;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.backpressure.client.GateContext;
import io.backpressure.client.ProviderFeedback;
import io.backpressure.client.RejectedException;
import io.backpressure.client.test.DailyQuotas;
import io.backpressure.core.InMemoryGate;
import io.backpressure.core.ManualClock;
import io.backpressure.core.RejectReason;
import io.backpressure.core.spi.EffectiveCaps;
import io.backpressure.mock.DailyCaps;
import io.backpressure.mock.MockProvider;
import io.backpressure.mock.RequestRecord;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.bedrockruntime.BedrockRuntimeClient;
import software.amazon.awssdk.services.bedrockruntime.model.ContentBlock;
import software.amazon.awssdk.services.bedrockruntime.model.ConversationRole;
import software.amazon.awssdk.services.bedrockruntime.model.ConverseRequest;
import software.amazon.awssdk.services.bedrockruntime.model.Message;

/**
 * Bedrock's daily token quota spent, through the AWS SDK v2's Bedrock runtime client and the mock
 * provider: the {@code ThrottlingException} "Too many tokens per day" reaches the gate as a stop,
 * which refuses the call that met it (asked again, not sent again) and the target's next calls
 * before they are sent, for its default hold since Bedrock names no reset, and cuts no effective
 * cap; the caller meets the gate's refusal, not the SDK's exception.
 */
class DailyQuotaTest {

  private static final String MODEL = "anthropic.claude-3-5-haiku-20241022-v1:0";

  private final ManualClock clock =
      new ManualClock(Instant.parse("2026-12-07T22:00:00Z").getEpochSecond() * 1_000_000_000L);

  private static ConverseRequest request(String text) {
    return ConverseRequest.builder()
        .modelId(MODEL)
        .messages(
            Message.builder()
                .role(ConversationRole.USER)
                .content(ContentBlock.fromText(text))
                .build())
        .inferenceConfig(config -> config.maxTokens(40))
        .build();
  }

  /**
   * Mutation tried: the parser reading every {@code ThrottlingException} as a slow down (the third
   * call is sent, and the effective tokens cap is cut).
   */
  @Test
  void aSpentDailyTokenQuotaStopsTheTargetWithoutCuttingItsCaps() throws Exception {
    InMemoryGate gate = DailyQuotas.gate("bedrock/us-east-1/claude-3-5-haiku", clock);
    try (MockProvider provider = DailyQuotas.mock(DailyCaps.utc(null, 40L), clock);
        GateContext.Scope scope = GateContext.of("acme", "P1").open();
        BedrockRuntimeClient bedrock =
            GatedBedrock.builder()
                .gate(gate)
                .ticker(clock)
                .feedback(ProviderFeedback.TO_CALLS_GATE)
                .build(TestBedrock.client(provider))) {
      bedrock.converse(request("first"));
      Instant refusedAt = clock.asClock().instant();

      assertThatThrownBy(() -> bedrock.converse(request("second")))
          .isInstanceOfSatisfying(RejectedException.class, e -> assertStoppedUntil(e, refusedAt));
      assertThat(provider.records())
          .extracting(RequestRecord::status)
          .as("the refused call is not sent again")
          .containsExactly(200, 429);
      assertThat(provider.records().get(1).boundDimension()).isEqualTo("tokens_per_day");
      assertThatThrownBy(() -> bedrock.converse(request("third")))
          .satisfies(e -> assertStoppedUntil(rejected(e), refusedAt));
      assertThat(provider.records())
          .extracting(RequestRecord::status)
          .as("the third call is refused before it is sent")
          .containsExactly(200, 429);
      assertNothingCut(gate.feedbackState());
    }
  }

  private static void assertStoppedUntil(RejectedException rejected, Instant refusedAt) {
    assertThat(rejected.reason()).isEqualTo(RejectReason.LIMIT_REACHED);
    assertThat(rejected.resetAt()).isEqualTo(refusedAt.plus(EffectiveCaps.STOP_HOLD));
  }

  /** The {@link RejectedException} that {@code thrown} is, or that the SDK wrapped. */
  private static RejectedException rejected(Throwable thrown) {
    for (Throwable e = thrown; e != null; e = e.getCause()) {
      if (e instanceof RejectedException rejected) {
        return rejected;
      }
    }
    throw new AssertionError("not a refusal of the gate", thrown);
  }
}
