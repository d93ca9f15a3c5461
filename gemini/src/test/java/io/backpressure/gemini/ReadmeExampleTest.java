package io.backpressure.gemini;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.genai.types.GenerateContentResponse;
import io.backpressure.client.test.OneCall;
import io.backpressure.client.test.ReadmeSnippet;
import io.backpressure.gemini.example.ReadmeExample;
import org.junit.jupiter.api.Test;

class ReadmeExampleTest {

  @Test
  void theReadmeExampleRunsAgainstTheMockProvider() throws Exception {
    GenerateContentResponse reply =
        OneCall.againstTheMock(provider -> ReadmeExample.ask(provider.url(), "mock-key"));
    assertThat(reply.usageMetadata()).isPresent();
  }

  @Test
  void theReadmeShowsTheExampleAsCompiledWithItsImports() throws Exception {
    String example = "src/test/java/io/backpressure/gemini/example/ReadmeExample.java";
    ReadmeSnippet.assertShown(example);
    ReadmeSnippet.assertShown(example, "imports");
  }
}
