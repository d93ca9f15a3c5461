package io.backpressure.tokens;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

class ReadmeExampleTest {

  @Test
  void theReadmeExampleCountsWhatItsCommentsSay() {
    // prompt: (3 + "system" + "You are terse.") + (3 + "user" + "hello world") + 3
    assertThat(ReadmeExample.counts()).containsExactly(2, 3 + 1 + 4 + 3 + 1 + 2 + 3, 4);
  }

  @Test
  void theReadmeShowsTheExampleAsCompiled() throws Exception {
    List<String> lines =
        Files.readAllLines(Path.of("src/test/java/io/backpressure/tokens/ReadmeExample.java"));
    int start = lines.indexOf("    // example:start") + 1;
    int end = lines.indexOf("    // example:end");
    StringBuilder example = new StringBuilder();
    for (String line : lines.subList(start, end)) {
      example.append(line.substring(4)).append('\n');
    }
    assertThat(Files.readString(Path.of("README.md"))).contains(example);
  }
}
