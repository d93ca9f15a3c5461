package io.backpressure.openai;

import static io.backpressure.client.test.DailyQuotas.assertNothingCut;
import static io.backpressure.client.test.DailyQuotas.assertStopped;
import static org.assertj.core.api.Assertions.assertThat;

import com.openai.azure.AzureOpenAIServiceVersion;
import com.openai.azure.AzureUrlPathMode;
import com.openai.azure.credential.AzureApiKeyCredential;
import com.openai.client.OpenAIClient;
import com.openai.models.chat.completions.ChatCompletionCreateParams;
import io.backpressure.client.GateContext;
import io.backpressure.client.ModelRoutes;
import io.backpressure.client.ProviderFeedback;
import io.backpressure.client.test.DailyQuotas;
import io.backpressure.core.InMemoryGate;
import io.backpressure.core.ManualClock;
import io.backpressure.mock.DailyCaps;
import io.backpressure.mock.MockProvider;
import io.backpressure.mock.RequestRecord;
import java.time.Duration;
import java.time.Instant;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * A provider's daily quota spent, through the real openai-java client and the mock provider: the
 * answer reaches the gate as a stop, which refuses the target's calls with the reset instant until
 * the day ends, sends nothing meanwhile, and cuts no effective cap; the next day the calls go
 * through again. OpenAI answers with its requests-per-day 429; a daily quota in front of Azure
 * OpenAI is API Management's, which answers 403.
 */
class DailyQuotaTest {

  /** 22:00 UTC, two hours before the mock's day ends. */
  private static final Instant LATE = Instant.parse("2026-12-07T22:00:00Z");

  private final ManualClock clock = new ManualClock(LATE.getEpochSecond() * 1_000_000_000L);

  private static OpenAIClient client(
      InMemoryGate gate, String model, Consumer<com.openai.core.ClientOptions.Builder> options) {
    return GatedOpenAI.builder()
        .routes(ModelRoutes.builder().route(model, gate).build())
        .feedback(ProviderFeedback.TO_CALLS_GATE)
        .clientOptions(options.andThen(o -> o.timeout(Duration.ofSeconds(20))))
        .build();
  }

  private static ChatCompletionCreateParams params(String model) {
    return ChatCompletionCreateParams.builder()
        .model(model)
        .addUserMessage("hello")
        .maxCompletionTokens(40)
        .build();
  }

  /**
   * OpenAI's requests per day: the third call's 429 carries the retry-after to midnight UTC, which
   * the gate holds every dimension for (the call that met it is refused with that instant, not sent
   * again), the fourth call is refused before it is sent, the effective caps stay where they were,
   * and at midnight the gate and the provider both let calls through.
   *
   * <p>Mutation tried: the parser reading the requests-per-day 429 by its type alone, as a slow
   * down (the call is deferred, and the effective requests cap is cut).
   */
  @Test
  void openAisRequestsPerDayStopsTheTargetUntilMidnight() throws Exception {
    String model = "gpt-4o-mini";
    InMemoryGate gate = DailyQuotas.gate("openai/" + model, clock);
    try (MockProvider provider = DailyQuotas.mock(DailyCaps.utc(2L, null), clock);
        GateContext.Scope scope = GateContext.of("acme", "P1").open()) {
      OpenAIClient client =
          client(gate, model, o -> o.baseUrl(provider.baseUrl()).apiKey("sk-test"));
      try {
        client.chat().completions().create(params(model));
        clock.advance(Duration.ofSeconds(1));
        client.chat().completions().create(params(model));
        clock.advance(Duration.ofSeconds(1));
        Instant midnight = Instant.parse("2026-12-08T00:00:00Z");

        assertStopped(() -> client.chat().completions().create(params(model)), midnight);
        assertThat(provider.records())
            .extracting(RequestRecord::status)
            .as("the refused call is not sent again")
            .containsExactly(200, 200, 429);
        assertThat(provider.records().get(2).boundDimension()).isEqualTo("requests_per_day");

        clock.advance(Duration.ofHours(1));
        assertStopped(() -> client.chat().completions().create(params(model)), midnight);
        assertThat(provider.records()).as("refused before it is sent").hasSize(3);
        assertNothingCut(gate.feedbackState());

        clock.set(midnight.getEpochSecond() * 1_000_000_000L);
        client.chat().completions().create(params(model));
        assertThat(provider.records()).extracting(RequestRecord::status).endsWith(200);
      } finally {
        client.close();
      }
    }
  }

  /**
   * A daily token quota in front of Azure OpenAI (API Management's {@code azure-openai-token-limit}
   * with a daily {@code token-quota}), through openai-java in Azure mode: the 403 that says when
   * the quota renews reaches the caller as the gate's refusal with that instant, on the call that
   * met it (not as the SDK's {@code PermissionDeniedException}) and on the next, which is not sent;
   * no effective cap is cut.
   *
   * <p>Mutation tried: the parser reading API Management's 403 as not about capacity (the first
   * refusal reaches the caller as the SDK's exception, and the next call is sent).
   */
  @Test
  void azuresDailyTokenQuotaStopsTheDeploymentUntilItRenews() throws Exception {
    String deployment = "gpt-4o-prod";
    InMemoryGate gate = DailyQuotas.gate("azure/my-resource/" + deployment, clock);
    try (MockProvider provider = DailyQuotas.mock(DailyCaps.utc(null, 40L), clock);
        GateContext.Scope scope = GateContext.of("acme", "P1").open()) {
      OpenAIClient client =
          client(
              gate,
              deployment,
              o ->
                  o.baseUrl(provider.url())
                      .credential(AzureApiKeyCredential.create("azure-test-key"))
                      .azureServiceVersion(AzureOpenAIServiceVersion.fromString("2024-10-21"))
                      .azureUrlPathMode(AzureUrlPathMode.LEGACY));
      Instant midnight = Instant.parse("2026-12-08T00:00:00Z");
      try {
        client.chat().completions().create(params(deployment));

        assertStopped(() -> client.chat().completions().create(params(deployment)), midnight);
        assertThat(provider.records()).extracting(RequestRecord::status).containsExactly(200, 403);
        assertThat(provider.records().get(1).boundDimension()).isEqualTo("tokens_per_day");
        assertStopped(() -> client.chat().completions().create(params(deployment)), midnight);
        assertThat(provider.records()).as("refused before it is sent").hasSize(2);
        assertNothingCut(gate.feedbackState());

        clock.set(midnight.getEpochSecond() * 1_000_000_000L);
        client.chat().completions().create(params(deployment));
        assertThat(provider.records()).extracting(RequestRecord::status).endsWith(200);
      } finally {
        client.close();
      }
    }
  }
}
