package io.backpressure.springai;

import static org.assertj.core.api.Assertions.assertThat;

import io.backpressure.client.test.OneCall;
import io.backpressure.client.test.ReadmeSnippet;
import io.backpressure.springai.example.ReadmeExample;
import io.backpressure.springai.test.MockOpenAi;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class ReadmeExampleTest {

  private static final String EXAMPLE =
      "src/test/java/io/backpressure/springai/example/ReadmeExample.java";

  @Test
  void theReadmeShowsTheCompiledExampleAndItsImports() throws Exception {
    ReadmeSnippet.assertShown(EXAMPLE);
    ReadmeSnippet.assertShown(EXAMPLE, "imports");
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
