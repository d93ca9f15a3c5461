package io.backpressure.springai.test;

import io.backpressure.mock.MockProvider;
import java.time.Duration;
import java.util.List;
import org.springframework.ai.openai.OpenAiChatModel;
import org.springframework.ai.openai.OpenAiChatOptions;
import org.springframework.ai.openai.http.okhttp.OpenAiHttpClientBuilderCustomizer;

/**
 * Spring AI's OpenAI chat model pointed at the mock provider, model {@code gpt-4o-mini}, with its
 * own retries off (the gate replaces them). For tests only.
 */
public final class MockOpenAi {

  private MockOpenAi() {}

  /**
   * The model calling {@code provider}, each call giving up after {@code timeout}, its HTTP client
   * built with {@code customizers} in order ({@code OpenAiSendCheck}, say), if any.
   */
  public static OpenAiChatModel chatModel(
      MockProvider provider, Duration timeout, OpenAiHttpClientBuilderCustomizer... customizers) {
    return OpenAiChatModel.builder()
        .options(
            OpenAiChatOptions.builder()
                .baseUrl(provider.baseUrl())
                .apiKey("sk-mock")
                .model("gpt-4o-mini")
                .maxRetries(0)
                .timeout(timeout)
                .build())
        .httpClientBuilderCustomizers(List.of(customizers))
        .build();
  }
}
