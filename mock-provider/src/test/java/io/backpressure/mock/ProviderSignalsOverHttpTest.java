package io.backpressure.mock;

import static org.assertj.core.api.Assertions.assertThat;

import io.backpressure.core.feedback.ProviderSignal;
import io.backpressure.core.feedback.ProviderSignals;
import io.backpressure.mock.limit.LimitSpec;
import io.backpressure.mock.limit.WindowModel;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/**
 * The core's signal parser against real HTTP answers of the mock provider, in both dialects: the
 * limits, what remains, the resets, retry-after and the exhausted dimension come through, and
 * nothing is ignored.
 */
class ProviderSignalsOverHttpTest {
  private static final String ANTHROPIC_BODY =
      "{\"model\":\"claude-x\",\"max_tokens\":10,"
          + "\"messages\":[{\"role\":\"user\",\"content\":\"abcdefgh\"}]}";

  /**
   * At least what is left now of the one-minute window that began when the mock started (its
   * windows are aligned to its start), however slowly the machine got here.
   */
  private static Duration leftOfTheWindow(long started) {
    return Duration.ofMinutes(1).minusNanos(System.nanoTime() - started);
  }

  private static MockProviderConfig config() {
    return MockProviderConfig.builder()
        .latencyMs(0, 0)
        .requests(LimitSpec.of(WindowModel.FIXED, 2, Duration.ofMinutes(1)))
        .tokens(LimitSpec.of(WindowModel.FIXED, 10_000, Duration.ofMinutes(1)))
        .completionTokens(new CompletionTokens.Fixed(30))
        .build();
  }

  @Test
  void openAiAnswersParse() throws Exception {
    long started = System.nanoTime();
    try (MockProvider provider = MockProvider.start(config())) {
      Http http = new Http(provider);
      ProviderSignal ok = parse(http.post("/v1/chat/completions", Http.chat("a".repeat(40), null)));
      assertThat(ok.status()).isEqualTo(200);
      assertThat(ok.ignored()).isZero();
      assertThat(ok.limits().get("requests").limit()).isEqualTo(2.0);
      assertThat(ok.limits().get("requests").remaining()).isEqualTo(1.0);
      assertThat(ok.limits().get("requests").reset())
          .isBetween(leftOfTheWindow(started), Duration.ofMinutes(1));
      assertThat(ok.limits().get("tokens").limit()).isEqualTo(10_000.0);
      assertThat(ok.limits().get("tokens").remaining()).isEqualTo(9_960.0);

      http.post("/v1/chat/completions", Http.chat("a", null));
      ProviderSignal limited = parse(http.post("/v1/chat/completions", Http.chat("a", null)));
      assertThat(limited.rateLimited()).isTrue();
      assertThat(limited.ignored()).isZero();
      assertThat(limited.exhausted()).containsExactly("requests");
      assertThat(limited.retryAfter()).isBetween(leftOfTheWindow(started), Duration.ofMinutes(1));
      assertThat(limited.limits().get("requests").remaining()).isZero();
    }
  }

  @Test
  void anthropicAnswersParse() throws Exception {
    long started = System.nanoTime();
    try (MockProvider provider = MockProvider.start(config())) {
      Http http = new Http(provider);
      ProviderSignal ok = parse(http.post("/v1/messages", ANTHROPIC_BODY));
      assertThat(ok.status()).isEqualTo(200);
      assertThat(ok.ignored()).isZero();
      assertThat(ok.limits().get("requests").limit()).isEqualTo(2.0);
      assertThat(ok.limits().get("requests").remaining()).isEqualTo(1.0);
      assertThat(ok.limits().get("requests").reset())
          .isBetween(leftOfTheWindow(started), Duration.ofMinutes(1));
      // 8 characters of prompt are 2 tokens, and max_tokens 10 are charged.
      assertThat(ok.limits().get("tokens").remaining()).isEqualTo(10_000.0 - 2 - 10);

      http.post("/v1/messages", ANTHROPIC_BODY);
      ProviderSignal limited = parse(http.post("/v1/messages", ANTHROPIC_BODY));
      assertThat(limited.rateLimited()).isTrue();
      assertThat(limited.ignored()).isZero();
      assertThat(limited.exhausted()).as("named by the zero remaining").containsExactly("requests");
      assertThat(limited.retryAfter()).isBetween(leftOfTheWindow(started), Duration.ofMinutes(1));
    }
  }

  /**
   * The overload answers read as the signal table says: Anthropic's 529, the Gemini API's,
   * Bedrock's, OpenAI's and Azure OpenAI's 503 as {@code OVERLOADED} (not a rate limit, not a
   * permanent error).
   */
  @Test
  void overloadAnswersParse() throws Exception {
    try (MockProvider provider = MockProvider.start(config())) {
      provider.setFaults(new Faults(false, 1, true));
      Http http = new Http(provider);
      ProviderSignal anthropic = parse(http.post("/v1/messages", ANTHROPIC_BODY));
      ProviderSignal gemini =
          parse(
              http.post(
                  "/v1beta/models/gemini-2.0-flash:generateContent",
                  "{\"contents\":[{\"parts\":[{\"text\":\"x\"}]}]}"));
      ProviderSignal bedrock =
          parse(
              http.post(
                  "/model/amazon.nova-lite-v1:0/converse",
                  "{\"messages\":[{\"role\":\"user\",\"content\":[{\"text\":\"x\"}]}]}"));
      ProviderSignal openAi = parse(http.post("/v1/chat/completions", Http.chat("a", null)));
      ProviderSignal azure =
          parse(
              http.post(
                  "/openai/deployments/gpt-4o-prod/chat/completions?api-version=2024-10-21",
                  Http.chat("a", null)));

      for (ProviderSignal overloaded :
          java.util.List.of(anthropic, gemini, bedrock, openAi, azure)) {
        assertThat(overloaded.meaning()).isEqualTo(ProviderSignal.Meaning.OVERLOADED);
        assertThat(overloaded.rateLimited()).isFalse();
        assertThat(overloaded.providerError()).isFalse();
        assertThat(overloaded.exhausted()).isEmpty();
        assertThat(overloaded.limits()).isEmpty();
        assertThat(overloaded.ignored()).isZero();
      }
      assertThat(anthropic.status()).isEqualTo(529);
      assertThat(openAi.status()).isEqualTo(503);
      assertThat(azure.status()).isEqualTo(503);
    }
  }

  private static ProviderSignal parse(Http.Answer answer) {
    return ProviderSignals.parse(
        answer.status(),
        answer.headers().map(),
        answer.body() == null ? null : answer.body().toString(),
        Instant.now());
  }
}
