package io.backpressure.springai.test;

import io.backpressure.mock.MockProvider;
import java.time.Duration;
import org.springframework.ai.openai.OpenAiChatModel;
import org.springframework.ai.openai.OpenAiChatOptions;

/**
 * Spring AI's OpenAI chat model pointed at the mock provider, model {@code gpt-4o-mini}, with its
 * own retries off (the gate replaces them). For tests only.
 */
public final class MockOpenAi {

  private MockOpenAi() {}

  /** The model calling {@code provider}, each call giving up after {@code timeout}. */
  public static OpenAiChatModel chatModel(MockProvider provider, Duration timeout) {
    return OpenAiChatModel.builder()
        .options(
            OpenAiChatOptions.builder()
                .baseUrl(provider.baseUrl())
                .apiKey("sk-mock")
                .model("gpt-4o-mini")
                .maxRetries(0)
                .timeout(timeout)
                .build())
        .build();
  }
}
