package io.backpressure.langchain4j;

import static org.assertj.core.api.Assertions.assertThat;

import io.backpressure.mock.MockProvider;
import io.backpressure.mock.MockProviderConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** The README's example is this module's {@link ReadmeExample}, word for word, and it works. */
class ReadmeExampleTest {

  @Test
  void theReadmeShowsTheCompiledExample() throws Exception {
    String source =
        Files.readString(Path.of("src/test/java/io/backpressure/langchain4j/ReadmeExample.java"));
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
      assertThat(ReadmeExample.answer(provider.baseUrl())).isNotEmpty().doesNotStartWith("retry");
      assertThat(provider.records())
          .singleElement()
          .satisfies(r -> assertThat(r.status()).isEqualTo(200));
    }
  }
}
