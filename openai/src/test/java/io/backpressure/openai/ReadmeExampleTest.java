package io.backpressure.openai;

import static org.assertj.core.api.Assertions.assertThat;

import com.openai.models.chat.completions.ChatCompletion;
import io.backpressure.client.test.ReadmeSnippet;
import io.backpressure.mock.MockProvider;
import io.backpressure.mock.MockProviderConfig;
import org.junit.jupiter.api.Test;

class ReadmeExampleTest {

  @Test
  void theReadmeExampleRunsAgainstTheMockProvider() throws Exception {
    try (MockProvider provider =
        MockProvider.start(MockProviderConfig.builder().latencyMs(0, 0).build())) {
      ChatCompletion reply = ReadmeExample.ask(provider.baseUrl(), "sk-mock");
      assertThat(reply.usage()).isPresent();
      assertThat(provider.records())
          .singleElement()
          .satisfies(r -> assertThat(r.status()).isEqualTo(200));
    }
  }

  @Test
  void theReadmeShowsTheExampleAsCompiled() throws Exception {
    assertThat(ReadmeSnippet.readme())
        .contains(ReadmeSnippet.of("src/test/java/io/backpressure/openai/ReadmeExample.java"));
  }

  @Test
  void theAzureExampleRunsAgainstTheMocksAzureDialect() throws Exception {
    try (MockProvider provider =
        MockProvider.start(MockProviderConfig.builder().latencyMs(0, 0).build())) {
      ChatCompletion reply = AzureReadmeExample.ask(provider.url(), "azure-mock-key");
      assertThat(reply.usage()).isPresent();
      assertThat(provider.records())
          .singleElement()
          .satisfies(r -> assertThat(r.status()).isEqualTo(200));
    }
  }

  @Test
  void theReadmeShowsTheAzureExampleAsCompiled() throws Exception {
    assertThat(ReadmeSnippet.readme())
        .contains(ReadmeSnippet.of("src/test/java/io/backpressure/openai/AzureReadmeExample.java"));
  }
}
