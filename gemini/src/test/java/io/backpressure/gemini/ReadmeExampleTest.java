package io.backpressure.gemini;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.genai.types.GenerateContentResponse;
import io.backpressure.client.test.ReadmeSnippet;
import io.backpressure.mock.MockProvider;
import io.backpressure.mock.MockProviderConfig;
import org.junit.jupiter.api.Test;

class ReadmeExampleTest {

  @Test
  void theReadmeExampleRunsAgainstTheMockProvider() throws Exception {
    try (MockProvider provider =
        MockProvider.start(MockProviderConfig.builder().latencyMs(0, 0).build())) {
      GenerateContentResponse reply = ReadmeExample.ask(provider.url(), "mock-key");
      assertThat(reply.usageMetadata()).isPresent();
      assertThat(provider.records())
          .singleElement()
          .satisfies(r -> assertThat(r.status()).isEqualTo(200));
    }
  }

  @Test
  void theReadmeShowsTheExampleAsCompiled() throws Exception {
    assertThat(ReadmeSnippet.readme())
        .contains(ReadmeSnippet.of("src/test/java/io/backpressure/gemini/ReadmeExample.java"));
  }
}
