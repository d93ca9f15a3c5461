package io.backpressure.langchain4j;

import static org.assertj.core.api.Assertions.assertThat;

import io.backpressure.client.test.OneCall;
import io.backpressure.client.test.ReadmeSnippet;
import org.junit.jupiter.api.Test;

class ReadmeExampleTest {

  @Test
  void theReadmeShowsTheCompiledExample() throws Exception {
    ReadmeSnippet.assertShown("src/test/java/io/backpressure/langchain4j/ReadmeExample.java");
  }

  @Test
  void theExampleAnswersThroughTheMockProvider() throws Exception {
    String answer = OneCall.againstTheMock(provider -> ReadmeExample.answer(provider.baseUrl()));
    assertThat(answer).isNotEmpty().doesNotStartWith("retry");
  }
}
