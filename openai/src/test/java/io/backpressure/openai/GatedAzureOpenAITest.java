package io.backpressure.openai;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

import com.openai.azure.AzureOpenAIServiceVersion;
import com.openai.azure.AzureUrlPathMode;
import com.openai.azure.credential.AzureApiKeyCredential;
import com.openai.client.OpenAIClient;
import com.openai.core.http.StreamResponse;
import com.openai.errors.RateLimitException;
import com.openai.errors.SseException;
import com.openai.models.chat.completions.ChatCompletion;
import com.openai.models.chat.completions.ChatCompletionChunk;
import com.openai.models.chat.completions.ChatCompletionCreateParams;
import io.backpressure.client.GateContext;
import io.backpressure.client.ModelRoutes;
import io.backpressure.client.ProviderResponse;
import io.backpressure.client.test.MockAnswers;
import io.backpressure.core.Cost;
import io.backpressure.core.InMemoryGate;
import io.backpressure.core.ManualClock;
import io.backpressure.core.Policy;
import io.backpressure.core.feedback.ProviderSignal;
import io.backpressure.core.feedback.ProviderSignals;
import io.backpressure.core.testing.RecordingGate;
import io.backpressure.mock.Faults;
import io.backpressure.mock.MockProvider;
import io.backpressure.mock.RequestRecord;
import java.time.Duration;
import java.time.Instant;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * The real openai-java client in its Azure mode (deployment paths, {@code api-version}, the {@code
 * api-key} credential), gated, against the mock provider's Azure OpenAI dialect.
 */
class GatedAzureOpenAITest {

  private static final String DEPLOYMENT = "gpt-4o-prod";

  private final ManualClock clock = new ManualClock();
  private final List<ProviderResponse> answers = new CopyOnWriteArrayList<>();

  private RecordingGate gate() {
    Policy policy =
        AzureDeployment.quota("azure/my-resource/" + DEPLOYMENT, 80_000).priority("P1", 1).build();
    return new RecordingGate(InMemoryGate.create(policy, clock));
  }

  private OpenAIClient client(MockProvider provider, RecordingGate gate) {
    return GatedOpenAI.builder()
        .routes(ModelRoutes.builder().route(DEPLOYMENT, gate).build())
        .feedback(answers::add)
        .clientOptions(
            options ->
                options
                    .baseUrl(provider.url())
                    .credential(AzureApiKeyCredential.create("azure-test-key"))
                    .azureServiceVersion(AzureOpenAIServiceVersion.fromString("2024-10-21"))
                    .azureUrlPathMode(AzureUrlPathMode.LEGACY))
        .build();
  }

  private static ChatCompletionCreateParams params(String prompt) {
    return ChatCompletionCreateParams.builder()
        .model(DEPLOYMENT)
        .addUserMessage(prompt)
        .maxCompletionTokens(40)
        .build();
  }

  @Test
  void theDeploymentRoutesTheCallAndTheAnswersUsageReleasesIt() throws Exception {
    RecordingGate gate = gate();
    try (MockProvider provider = MockProvider.start(MockAnswers.atOnce(25).build());
        GateContext.Scope scope = GateContext.of("acme", "P1").open()) {
      OpenAIClient client = client(provider, gate);
      try {
        ChatCompletion reply = client.chat().completions().create(params("hello azure"));

        assertThat(gate.requests())
            .singleElement()
            .satisfies(r -> assertThat(r.maxTokens()).isEqualTo(40L));
        assertThat(provider.records())
            .singleElement()
            .satisfies(r -> assertThat(r.status()).isEqualTo(200));
        long total = reply.usage().orElseThrow().totalTokens();
        assertThat(gate.releasedWith()).containsExactly(Cost.requests(1).tokens(total));
        assertThat(answers)
            .singleElement()
            .satisfies(a -> assertThat(a.target()).isEqualTo("azure/my-resource/" + DEPLOYMENT));
      } finally {
        client.close();
      }
    }
  }

  @Test
  void a429sRetryAfterMsAndItsDimensionReachTheFeedback() throws Exception {
    RecordingGate gate = gate();
    try (MockProvider provider =
            MockProvider.start(MockAnswers.oneRequestPer(Duration.ofSeconds(10), 25));
        GateContext.Scope scope = GateContext.of("acme", "P1").open()) {
      OpenAIClient client = client(provider, gate);
      try {
        client.chat().completions().create(params("first"));
        assertThatThrownBy(() -> client.chat().completions().create(params("second")))
            .isInstanceOf(RateLimitException.class);

        assertThat(provider.records()).as("the SDK's retries are off").hasSize(2);
        ProviderResponse refused = answers.get(1);
        assertThat(refused.header("x-ratelimit-remaining-requests")).isEqualTo("0");
        ProviderSignal signal =
            ProviderSignals.parse(429, refused.headers(), refused.body(), Instant.now());
        assertThat(signal.meaning()).isEqualTo(ProviderSignal.Meaning.SLOW_DOWN);
        assertThat(signal.exhausted()).containsExactly("requests");
        assertThat(signal.retryAfter())
            .as("retry-after-ms, to the millisecond")
            .isEqualTo(Duration.ofMillis(Long.parseLong(refused.header("retry-after-ms"))));
      } finally {
        client.close();
      }
    }
  }

  /**
   * The mock's overloaded fault switched on after the first text of an Azure stream: the stream
   * ends with Azure's {@code ServiceUnavailable} error object in place of a chunk, which
   * openai-java throws as its {@code SseException}; the feedback hears the 503 it stands for,
   * marked mid-stream and read as an overload, and the mock charges the cut stream only the tokens
   * it delivered.
   */
  @Test
  void anOverloadUnderWayEndsTheStreamWithAzuresError() throws Exception {
    RecordingGate gate = gate();
    try (MockProvider provider = MockProvider.start(MockAnswers.slowly(4_000, 40));
        GateContext.Scope scope = GateContext.of("acme", "P1").open()) {
      OpenAIClient client = client(provider, gate);
      try (StreamResponse<ChatCompletionChunk> stream =
          client.chat().completions().createStreaming(params("stream me a story"))) {
        Iterator<ChatCompletionChunk> chunks = stream.stream().iterator();
        while (chunks.next().choices().stream()
            .allMatch(choice -> choice.delta().content().orElse("").isEmpty())) {
          // up to the first text
        }
        provider.setFaults(new Faults(false, 1, true));
        assertThatThrownBy(() -> chunks.forEachRemaining(next -> {}))
            .isInstanceOf(SseException.class);
      } finally {
        client.close();
      }
      assertThat(answers)
          .extracting(ProviderResponse::statusCode, ProviderResponse::midStream)
          .containsExactly(tuple(200, false), tuple(503, true));
      ProviderResponse cut = answers.get(1);
      assertThat(cut.body()).contains("ServiceUnavailable");
      assertThat(
              ProviderSignals.parse(503, cut.headers(), cut.body(), Instant.now(), true).meaning())
          .as("read as an overload, as a 503 before the stream is")
          .isEqualTo(ProviderSignal.Meaning.OVERLOADED);
      RequestRecord record = provider.records().get(0);
      assertThat(record.status()).isEqualTo(200);
      assertThat(record.completionTokens()).isBetween(1L, 39L);
      assertThat(gate.releases()).hasSize(1);
      assertThat(gate.outstanding()).isZero();
    }
  }

  @Test
  void aDeploymentsQuotaDerivesItsRequestsPerMinute() {
    Policy policy = AzureDeployment.quota("azure/r/d", 80_000).priority("P1", 1).build();
    assertThat(policy.dimensions().get(0).capPerSecond()).isEqualTo(480 / 60.0);
    assertThat(policy.dimensions().get(1).capPerSecond()).isEqualTo(80_000 / 60.0);
    assertThatThrownBy(() -> AzureDeployment.quota("azure/r/d", 999))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("tokensPerMinute must be in [1000, ");
  }
}
