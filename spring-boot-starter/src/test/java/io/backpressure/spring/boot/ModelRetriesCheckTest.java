package io.backpressure.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.langchain4j.model.openai.OpenAiChatModel;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.springframework.ai.openai.OpenAiChatOptions;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** Start-up fails when a model the integrations gate would retry failed calls on its own. */
class ModelRetriesCheckTest {
  private final ApplicationContextRunner runner =
      new ApplicationContextRunner()
          .withConfiguration(
              AutoConfigurations.of(
                  BackpressureAutoConfiguration.class,
                  SpringAiBackpressureAutoConfiguration.class,
                  LangChain4jBackpressureAutoConfiguration.class))
          .withPropertyValues(
              "backpressure.targets.openai.requests-per-minute=600",
              "backpressure.targets.openai.tokens-per-minute=600000",
              "backpressure.targets.openai.priorities.P1=1");

  private static org.springframework.ai.openai.OpenAiChatModel springAi(
      OpenAiChatOptions.Builder options) {
    return org.springframework.ai.openai.OpenAiChatModel.builder()
        .options(
            options
                .baseUrl("http://127.0.0.1:1/v1")
                .apiKey("sk-mock")
                .model("gpt-4o-mini")
                .timeout(Duration.ofSeconds(5))
                .build())
        .build();
  }

  @Test
  void aSpringAiModelWithItsDefaultRetriesFailsStartUpNamingTheBeanAndTheProperty() {
    runner
        .withBean(
            "chatModel",
            org.springframework.ai.openai.OpenAiChatModel.class,
            () -> springAi(OpenAiChatOptions.builder()))
        .run(
            context ->
                assertThat(context)
                    .hasFailed()
                    .getFailure()
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("'chatModel'")
                    .hasMessageContaining("max-retries 3")
                    .hasMessageContaining("spring.ai.openai.max-retries=0"));
  }

  @Test
  void aSpringAiModelWithoutRetriesStarts_andTheCheckCanBeTurnedOff() {
    runner
        .withBean(
            "chatModel",
            org.springframework.ai.openai.OpenAiChatModel.class,
            () -> springAi(OpenAiChatOptions.builder().maxRetries(0)))
        .run(context -> assertThat(context).hasNotFailed());
    runner
        .withBean(
            "chatModel",
            org.springframework.ai.openai.OpenAiChatModel.class,
            () -> springAi(OpenAiChatOptions.builder()))
        .withPropertyValues("backpressure.spring-ai.check-model-retries=false")
        .run(context -> assertThat(context).hasNotFailed());
  }

  @Test
  void theModelsClientIsWhatCounts() {
    org.springframework.ai.openai.OpenAiChatModel model =
        springAi(OpenAiChatOptions.builder().maxRetries(2));
    assertThat(SpringAiModelRetries.of(model)).hasValue(2);
  }

  @Test
  void aLangChain4jModelWithItsDefaultRetriesFailsStartUpWhenItIsWrapped() {
    runner
        .withBean(
            dev.langchain4j.model.chat.ChatModel.class,
            () ->
                OpenAiChatModel.builder()
                    .baseUrl("http://127.0.0.1:1/v1")
                    .apiKey("sk-mock")
                    .modelName("gpt-4o-mini")
                    .build())
        .run(
            context ->
                assertThat(context)
                    .hasFailed()
                    .getFailure()
                    .rootCause()
                    .hasMessageContaining("maxRetries=2"));
    runner
        .withBean(
            dev.langchain4j.model.chat.ChatModel.class,
            () ->
                OpenAiChatModel.builder()
                    .baseUrl("http://127.0.0.1:1/v1")
                    .apiKey("sk-mock")
                    .modelName("gpt-4o-mini")
                    .build())
        .withPropertyValues("backpressure.langchain4j.decorate-models=false")
        .run(context -> assertThat(context).hasNotFailed());
  }
}
