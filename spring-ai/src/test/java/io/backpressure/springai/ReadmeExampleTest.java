package io.backpressure.springai;

import static org.assertj.core.api.Assertions.assertThat;

import io.backpressure.client.test.OneCall;
import io.backpressure.client.test.ReadmeSnippet;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.springframework.ai.openai.OpenAiChatModel;
import org.springframework.ai.openai.OpenAiChatOptions;

class ReadmeExampleTest {

  @Test
  void theReadmeShowsTheCompiledExample() throws Exception {
    ReadmeSnippet.assertShown("src/test/java/io/backpressure/springai/ReadmeExample.java");
  }

  @Test
  void theExampleAnswersThroughTheMockProvider() throws Exception {
    String answer =
        OneCall.againstTheMock(
            provider ->
                ReadmeExample.answer(
                    OpenAiChatModel.builder()
                        .options(
                            OpenAiChatOptions.builder()
                                .baseUrl(provider.baseUrl())
                                .apiKey("sk-mock")
                                .model("gpt-4o-mini")
                                .maxRetries(0)
                                .timeout(Duration.ofSeconds(20))
                                .build())
                        .build()));
    assertThat(answer).isNotEmpty().doesNotStartWith("retry");
  }
}
