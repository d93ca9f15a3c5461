package io.backpressure.openai;

import static org.assertj.core.api.Assertions.assertThat;

import com.openai.models.chat.completions.ChatCompletion;
import io.backpressure.client.test.OneCall;
import io.backpressure.client.test.ReadmeSnippet;
import org.junit.jupiter.api.Test;

class ReadmeExampleTest {

  @Test
  void theReadmeExampleRunsAgainstTheMockProvider() throws Exception {
    ChatCompletion reply =
        OneCall.againstTheMock(provider -> ReadmeExample.ask(provider.baseUrl(), "sk-mock"));
    assertThat(reply.usage()).isPresent();
  }

  @Test
  void theReadmeShowsTheExampleAsCompiled() throws Exception {
    ReadmeSnippet.assertShown("src/test/java/io/backpressure/openai/ReadmeExample.java");
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
