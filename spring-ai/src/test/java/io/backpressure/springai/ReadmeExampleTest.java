package io.backpressure.springai;

import static org.assertj.core.api.Assertions.assertThat;

import io.backpressure.client.test.OneCall;
import io.backpressure.client.test.ReadmeSnippet;
import io.backpressure.springai.test.MockOpenAi;
import java.time.Duration;
import org.junit.jupiter.api.Test;

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
                ReadmeExample.answer(MockOpenAi.chatModel(provider, Duration.ofSeconds(20))));
    assertThat(answer).isNotEmpty().doesNotStartWith("retry");
  }
}
