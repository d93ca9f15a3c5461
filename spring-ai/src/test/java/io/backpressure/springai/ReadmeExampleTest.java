package io.backpressure.springai;

import static org.assertj.core.api.Assertions.assertThat;

import io.backpressure.mock.MockProvider;
import io.backpressure.mock.MockProviderConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.springframework.ai.openai.OpenAiChatModel;
import org.springframework.ai.openai.OpenAiChatOptions;

/** The README's example is this module's {@link ReadmeExample}, word for word, and it works. */
class ReadmeExampleTest {

  @Test
  void theReadmeShowsTheCompiledExample() throws Exception {
    String source =
        Files.readString(Path.of("src/test/java/io/backpressure/springai/ReadmeExample.java"));
    String example =
        source
            .substring(
                source.indexOf("// README:begin\n") + "// README:begin\n".length(),
                source.indexOf("// README:end"))
            .stripIndent();
    assertThat(Files.readString(Path.of("README.md"))).contains(example);
  }

  @Test
  void theExampleAnswersThroughTheMockProvider() throws Exception {
    try (MockProvider provider =
        MockProvider.start(MockProviderConfig.builder().latencyMs(0, 0).build())) {
      OpenAiChatModel openAi =
          OpenAiChatModel.builder()
              .options(
                  OpenAiChatOptions.builder()
                      .baseUrl(provider.baseUrl())
                      .apiKey("sk-mock")
                      .model("gpt-4o-mini")
                      .maxRetries(0)
                      .timeout(Duration.ofSeconds(20))
                      .build())
              .build();

      assertThat(ReadmeExample.answer(openAi)).isNotEmpty().doesNotStartWith("retry");
      assertThat(provider.records())
          .singleElement()
          .satisfies(r -> assertThat(r.status()).isEqualTo(200));
    }
  }
}
