package io.backpressure.gemini;

import com.google.genai.Client;
import com.google.genai.errors.ApiException;
import com.google.genai.types.GenerateContentConfig;
import io.backpressure.client.ProviderFeedback;
import io.backpressure.client.test.SharedQuota;
import io.backpressure.client.test.TenantLoad;
import io.backpressure.core.testing.RecordingGate;
import io.backpressure.mock.MockProvider;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * Four tenants share a Gemini project whose quota is 10 requests per window (the mock's Gemini
 * dialect, fixed one-second windows), through one gate on the wall clock: no 429 reaches a caller,
 * every call is answered, and what the gate released matches what the provider counted.
 */
class GeminiTenantsIT {

  @Test
  void fourTenantsAtACapOfTenPerWindowMeetNo429() throws Exception {
    RecordingGate gate = SharedQuota.gate("gemini/my-project");
    try (MockProvider provider = MockProvider.start(SharedQuota.provider())) {
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
              SharedQuota.TENANTS,
              SharedQuota.CALLS,
              e -> e instanceof ApiException api && api.code() == 429,
              Duration.ofSeconds(60),
              i -> client.models.generateContent("gemini-2.5-flash", "call " + i, generation));

      SharedQuota.assertAnsweredWithin(outcome, provider, gate);
    }
  }
}
