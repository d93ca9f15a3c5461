package io.backpressure.langchain4j;

import static org.assertj.core.api.Assertions.assertThat;

import io.backpressure.client.test.OneCall;
import io.backpressure.client.test.ReadmeSnippet;
import io.backpressure.langchain4j.example.ReadmeExample;
import org.junit.jupiter.api.Test;

class ReadmeExampleTest {

  private static final String EXAMPLE =
      "src/test/java/io/backpressure/langchain4j/example/ReadmeExample.java";

  @Test
  void theReadmeShowsTheCompiledExampleAndItsImports() throws Exception {
    ReadmeSnippet.assertShown(EXAMPLE);
    ReadmeSnippet.assertShown(EXAMPLE, "imports");
  }

  @Test
  void theExampleAnswersThroughTheMockProvider() throws Exception {
    String answer = OneCall.againstTheMock(provider -> ReadmeExample.answer(provider.baseUrl()));
    assertThat(answer).isNotEmpty().doesNotStartWith("retry");
  }
}
