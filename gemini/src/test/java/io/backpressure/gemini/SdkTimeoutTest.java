package io.backpressure.gemini;

import com.google.genai.Client;
import com.google.genai.types.GenerateContentConfig;
import com.google.genai.types.HttpOptions;
import io.backpressure.client.test.SdkTimeoutSuite;
import io.backpressure.core.InMemoryGate;
import io.backpressure.core.ManualClock;
import io.backpressure.core.Policy;
import io.backpressure.core.testing.RecordingGate;
import io.backpressure.mock.MockProvider;
import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * google-genai's {@code HttpOptions.timeout}, the client's or a call's own, is the call's deadline
 * at the gate. The gate admits one request per five seconds, so that a call's own timeout of 2.5 s
 * ends before its turn. Mutation tried: the interceptor asking without the timeouts (the expired
 * calls are deferred).
 */
class SdkTimeoutTest extends SdkTimeoutSuite {

  @Override
  protected String target() {
    return "gemini/my-project";
  }

  @Override
  protected RecordingGate gate(ManualClock clock) {
    return new RecordingGate(
        InMemoryGate.create(
            Policy.builder(target())
                .dimension("requests", 0.2, 1)
                .tokensPerSecond(100_000)
                .priority("P1", 1)
                .build(),
            clock));
  }

  @Override
  protected Duration callTimeout() {
    return Duration.ofMillis(2_500);
  }

  @Override
  protected void call(
      RecordingGate gate,
      MockProvider provider,
      Duration clientTimeout,
      @Nullable Duration callTimeout) {
    Client client =
        GatedGemini.builder()
            .gate(gate)
            .ticker(clock)
            .client(builder -> builder.apiKey("test-key"))
            .httpOptions(
                options -> options.baseUrl(provider.url()).timeout((int) clientTimeout.toMillis()))
            .build();
    GenerateContentConfig.Builder config = GenerateContentConfig.builder().maxOutputTokens(40);
    if (callTimeout != null) {
      config.httpOptions(HttpOptions.builder().timeout((int) callTimeout.toMillis()).build());
    }
    client.models.generateContent("gemini-2.5-flash", "hello", config.build());
  }
}
