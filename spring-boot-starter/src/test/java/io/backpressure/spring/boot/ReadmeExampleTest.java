package io.backpressure.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.langchain4j.model.chat.ChatModel;
import io.backpressure.client.GateContext;
import io.backpressure.core.Gate;
import io.backpressure.langchain4j.GatedChatModel;
import io.backpressure.mock.MockProvider;
import io.backpressure.mock.MockProviderConfig;
import io.backpressure.springai.test.MockOpenAi;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.springframework.ai.chat.client.ChatClient;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * The README's properties and configuration class are the ones this test starts a context with,
 * word for word, and a call through the resulting ChatClient is gated.
 */
class ReadmeExampleTest {

  private static String readme() throws Exception {
    return Files.readString(Path.of("README.md"));
  }

  /** The README's first {@code properties} block, as property lines. */
  private static String[] readmeProperties() throws Exception {
    String readme = readme();
    int start = readme.indexOf("```properties\n") + "```properties\n".length();
    String block = readme.substring(start, readme.indexOf("```", start));
    return Arrays.stream(block.split("\n"))
        .map(String::strip)
        .filter(line -> !line.isEmpty() && !line.startsWith("#"))
        .toArray(String[]::new);
  }

  /** The lines of a configuration class between its {@code README:begin} and {@code end}. */
  private static String example(String className) throws Exception {
    String source =
        Files.readString(
            Path.of("src/test/java/io/backpressure/spring/boot/" + className + ".java"));
    return source.substring(
        source.indexOf("// README:begin\n") + "// README:begin\n".length(),
        source.indexOf("// README:end"));
  }

  @Test
  void theReadmeShowsTheCompiledConfiguration() throws Exception {
    assertThat(readme()).contains(example("ChatConfiguration"));
  }

  @Test
  void theReadmeShowsTheCompiledLangChain4jConfiguration() throws Exception {
    assertThat(readme()).contains(example("LangChain4jConfiguration"));
  }

  /**
   * The README's properties and its LangChain4j configuration class: the model bean is gated, and a
   * call through it is answered.
   */
  @Test
  void theReadmePropertiesGateTheLangChain4jModelBean() throws Exception {
    try (MockProvider provider =
        MockProvider.start(MockProviderConfig.builder().latencyMs(0, 0).build())) {
      new ApplicationContextRunner()
          .withConfiguration(
              AutoConfigurations.of(
                  BackpressureAutoConfiguration.class,
                  LangChain4jBackpressureAutoConfiguration.class))
          .withPropertyValues(readmeProperties())
          .withPropertyValues("openai.base-url=" + provider.baseUrl())
          .withUserConfiguration(LangChain4jConfiguration.class)
          .run(
              context -> {
                assertThat(context).hasNotFailed();
                ChatModel model = context.getBean(ChatModel.class);
                assertThat(model).isInstanceOf(GatedChatModel.class);

                String answer = GateContext.of("acme", "P1").call(() -> model.chat("Hello"));

                assertThat(answer).isNotEmpty();
                assertThat(provider.records())
                    .singleElement()
                    .satisfies(r -> assertThat(r.status()).isEqualTo(200));
              });
    }
  }

  @Test
  void theReadmePropertiesStartAGatedChatClient() throws Exception {
    try (MockProvider provider =
        MockProvider.start(MockProviderConfig.builder().latencyMs(0, 0).build())) {
      new ApplicationContextRunner()
          .withConfiguration(
              AutoConfigurations.of(
                  BackpressureAutoConfiguration.class, SpringAiBackpressureAutoConfiguration.class))
          .withPropertyValues(readmeProperties())
          .withBean(
              ChatClient.Builder.class,
              () -> ChatClient.builder(MockOpenAi.chatModel(provider, Duration.ofSeconds(20))))
          .withUserConfiguration(ChatConfiguration.class)
          .run(
              context -> {
                assertThat(context).hasNotFailed();
                assertThat(context.getBean(Gate.class).target()).isEqualTo("openai/gpt-4o-mini");
                ChatClient chat = context.getBean(ChatClient.class);

                String answer =
                    chat.prompt("Hello")
                        .advisors(a -> a.param(GateContext.KEY, GateContext.of("acme", "P1")))
                        .call()
                        .content();

                assertThat(answer).isNotEmpty();
                assertThat(provider.records())
                    .singleElement()
                    .satisfies(r -> assertThat(r.status()).isEqualTo(200));
              });
    }
  }
}
