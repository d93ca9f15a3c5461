package io.backpressure.anthropic;

import static org.assertj.core.api.Assertions.assertThat;

import com.anthropic.models.messages.Message;
import io.backpressure.anthropic.example.ReadmeExample;
import io.backpressure.client.test.OneCall;
import io.backpressure.client.test.ReadmeSnippet;
import org.junit.jupiter.api.Test;

class ReadmeExampleTest {

  @Test
  void theReadmeExampleRunsAgainstTheMockProvider() throws Exception {
    Message reply =
        OneCall.againstTheMock(provider -> ReadmeExample.ask(provider.url(), "sk-ant-mock"));
    assertThat(reply.usage().outputTokens()).isPositive();
  }

  @Test
  void theReadmeShowsTheExampleAsCompiledWithItsImports() throws Exception {
    String example = "src/test/java/io/backpressure/anthropic/example/ReadmeExample.java";
    ReadmeSnippet.assertShown(example);
    ReadmeSnippet.assertShown(example, "imports");
  }
}
