package io.backpressure.gemini;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.genai.Client;
import com.google.genai.errors.ApiException;
import com.google.genai.types.GenerateContentConfig;
import io.backpressure.client.ProviderFeedback;
import io.backpressure.client.test.TenantLoad;
import io.backpressure.core.InMemoryGate;
import io.backpressure.core.Policy;
import io.backpressure.core.testing.RecordingGate;
import io.backpressure.mock.CompletionTokens;
import io.backpressure.mock.MockProvider;
import io.backpressure.mock.MockProviderConfig;
import io.backpressure.mock.RequestRecord;
import io.backpressure.mock.limit.LimitSpec;
import io.backpressure.mock.limit.WindowModel;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * Four tenants share a Gemini project whose quota is 10 requests per window (the mock's Gemini
 * dialect, fixed one-second windows), through one gate on the wall clock: no 429 reaches a caller,
 * every call is answered, and what the gate released matches what the provider counted.
 */
class GeminiTenantsIT {

  private static final int TENANTS = 4;
  private static final int CALLS = 8;

  @Test
  void fourTenantsAtACapOfTenPerWindowMeetNo429() throws Exception {
    MockProviderConfig config =
        MockProviderConfig.builder()
            .requests(LimitSpec.of(WindowModel.FIXED, 10, Duration.ofSeconds(1)))
            .latencyMs(20, 60)
            .completionTokens(new CompletionTokens.Uniform(10, 30))
            .build();
    // 9 a second and a burst of 1: at most 10 in any one-second window.
    Policy policy =
        Policy.builder("gemini/my-project")
            .dimension("requests", 9, 1)
            .tokensPerSecond(1_000_000)
            .priority("P1", 1)
            .build();
    RecordingGate gate = new RecordingGate(InMemoryGate.create(policy));
    try (MockProvider provider = MockProvider.start(config)) {
      Client client =
          GatedGemini.builder()
              .gate(gate)
              .feedback(ProviderFeedback.toGate(gate))
              .client(builder -> builder.apiKey("test-key"))
              .httpOptions(options -> options.baseUrl(provider.url()))
              .build();
      GenerateContentConfig generation =
          GenerateContentConfig.builder().maxOutputTokens(40).build();
      TenantLoad.Outcome outcome =
          TenantLoad.run(
              TENANTS,
              CALLS,
              e -> e instanceof ApiException api && api.code() == 429,
              Duration.ofSeconds(60),
              i -> client.models.generateContent("gemini-2.5-flash", "call " + i, generation));

      assertThat(outcome.refused()).as("429s that reached a caller").isZero();
      assertThat(outcome.answered()).isEqualTo(TENANTS * CALLS);
      long counted = 0;
      for (RequestRecord record : provider.records()) {
        assertThat(record.status()).isEqualTo(200);
        counted += record.promptTokens() + record.completionTokens();
      }
      double released =
          gate.releases().stream()
              .filter(RecordingGate.Release::applied)
              .map(RecordingGate.Release::actual)
              .mapToDouble(c -> c.amount("tokens"))
              .sum();
      assertThat(released).isCloseTo(counted, org.assertj.core.data.Percentage.withPercentage(1));
      assertThat(gate.releasedWith()).allSatisfy(c -> assertThat(c.amount("requests")).isOne());
      assertThat(gate.outstanding()).isZero();
    }
  }
}
