package io.backpressure.openai;

import static org.assertj.core.api.Assertions.assertThat;

import com.openai.models.chat.completions.ChatCompletion;
import io.backpressure.client.test.OneCall;
import io.backpressure.client.test.ReadmeSnippet;
import io.backpressure.openai.example.ReadmeExample;
import org.junit.jupiter.api.Test;

class ReadmeExampleTest {

  @Test
  void theReadmeExampleRunsAgainstTheMockProvider() throws Exception {
    ChatCompletion reply =
        OneCall.againstTheMock(provider -> ReadmeExample.ask(provider.baseUrl(), "sk-mock"));
    assertThat(reply.usage()).isPresent();
  }

  @Test
  void theReadmeShowsTheExampleAsCompiledWithItsImports() throws Exception {
    String example = "src/test/java/io/backpressure/openai/example/ReadmeExample.java";
    ReadmeSnippet.assertShown(example);
    ReadmeSnippet.assertShown(example, "imports");
  }

  @Test
  void theAzureExampleRunsAgainstTheMocksAzureDialect() throws Exception {
    ChatCompletion reply =
        OneCall.againstTheMock(
            provider -> AzureReadmeExample.ask(provider.url(), "azure-mock-key"));
    assertThat(reply.usage()).isPresent();
  }

  @Test
  void theReadmeShowsTheAzureExampleAsCompiled() throws Exception {
    ReadmeSnippet.assertShown("src/test/java/io/backpressure/openai/AzureReadmeExample.java");
  }
}
