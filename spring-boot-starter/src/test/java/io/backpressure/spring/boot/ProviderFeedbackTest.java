package io.backpressure.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.langchain4j.http.client.HttpClientBuilder;
import dev.langchain4j.http.client.jdk.JdkHttpClient;
import io.backpressure.mock.MockProvider;
import io.backpressure.mock.MockProviderConfig;
import io.backpressure.mock.limit.LimitSpec;
import io.backpressure.mock.limit.WindowModel;
import io.backpressure.springai.BackpressureAdvisor;
import io.backpressure.springai.OpenAiSendCheck;
import io.backpressure.springai.test.MockOpenAi;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.openai.OpenAiChatModel;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * Provider feedback is on by default for Spring AI and LangChain4j: one call through the starter's
 * advisor or decorator, against a provider that counts three requests a second and says so in its
 * {@code x-ratelimit-*} headers, moves {@code backpressure_feedback_signals_total} and lowers the
 * effective requests cap below the configured five a second; with the property off, neither moves.
 */
class ProviderFeedbackTest {
  private MockProvider provider;
  private ApplicationContextRunner runner;

  @BeforeEach
  void start() throws Exception {
    provider =
        MockProvider.start(
            MockProviderConfig.builder()
                .requests(LimitSpec.perSecond(WindowModel.FIXED, 3))
                .latencyMs(0, 0)
                .build());
    runner =
        new ApplicationContextRunner()
            .withConfiguration(
                AutoConfigurations.of(
                    BackpressureAutoConfiguration.class,
                    SpringAiBackpressureAutoConfiguration.class,
                    LangChain4jBackpressureAutoConfiguration.class))
            .withBean(MeterRegistry.class, SimpleMeterRegistry::new)
            .withPropertyValues(
                // Five requests a second, feedback over one-second periods.
                "backpressure.targets.openai.policy-file=classpath:cold-start-policy.yaml",
                "backpressure.default-tenant=acme",
                "backpressure.default-priority=P1");
  }

  @AfterEach
  void stop() {
    provider.close();
  }

  @Test
  void springAi_anAnswersHeadersMoveTheSignalsAndTheEffectiveCap() {
    runner.run(
        context -> {
          springAiCall(context);

          assertThat(signals(context)).isPositive();
          assertThat(effectiveRequestsCap(context)).isLessThan(5.0);
        });
  }

  @Test
  void springAi_offByProperty_theGateHearsNothing() {
    runner
        .withPropertyValues("backpressure.spring-ai.provider-feedback=false")
        .run(
            context -> {
              springAiCall(context);

              assertThat(signals(context)).isZero();
              assertThat(effectiveRequestsCap(context)).isEqualTo(5.0);
            });
  }

  @Test
  void langChain4j_anAnswersHeadersMoveTheSignalsAndTheEffectiveCap() {
    runner.run(
        context -> {
          langChain4jCall(context);

          assertThat(signals(context)).isPositive();
          assertThat(effectiveRequestsCap(context)).isLessThan(5.0);
        });
  }

  @Test
  void langChain4j_offByProperty_theGateHearsNothing() {
    runner
        .withPropertyValues("backpressure.langchain4j.provider-feedback=false")
        .run(
            context -> {
              langChain4jCall(context);

              assertThat(signals(context)).isZero();
              assertThat(effectiveRequestsCap(context)).isEqualTo(5.0);
            });
  }

  /**
   * One call through a ChatClient with the starter's advisor, its model with the starter's hook.
   */
  private void springAiCall(AssertableApplicationContext context) {
    OpenAiChatModel model =
        MockOpenAi.chatModel(
            provider, Duration.ofSeconds(20), context.getBean(OpenAiSendCheck.class));
    ChatClient chat =
        ChatClient.builder(model)
            .defaultAdvisors(context.getBean(BackpressureAdvisor.class))
            .build();
    assertThat(chat.prompt("hello").call().content()).isNotEmpty();
    assertThat(provider.records())
        .singleElement()
        .satisfies(r -> assertThat(r.status()).isEqualTo(200));
  }

  /**
   * One call through a LangChain4j OpenAI model built from an {@code HttpClientBuilder} bean, as
   * LangChain4j's starters build theirs, and wrapped by the starter's decorator.
   */
  private void langChain4jCall(AssertableApplicationContext context) {
    dev.langchain4j.model.chat.ChatModel model =
        (dev.langchain4j.model.chat.ChatModel)
            context
                .getBeanFactory()
                .initializeBean(
                    dev.langchain4j.model.openai.OpenAiChatModel.builder()
                        .httpClientBuilder(
                            (HttpClientBuilder)
                                context
                                    .getBeanFactory()
                                    .initializeBean(JdkHttpClient.builder(), "httpClientBuilder"))
                        .baseUrl(provider.baseUrl())
                        .apiKey("sk-mock")
                        .modelName("gpt-4o-mini")
                        .maxRetries(0)
                        .timeout(Duration.ofSeconds(20))
                        .build(),
                    "chatModel");
    assertThat(model.chat("hello")).isNotEmpty();
    assertThat(provider.records())
        .singleElement()
        .satisfies(r -> assertThat(r.status()).isEqualTo(200));
  }

  private static double signals(AssertableApplicationContext context) {
    return context
        .getBean(MeterRegistry.class)
        .find("backpressure.feedback.signals")
        .counters()
        .stream()
        .mapToDouble(Counter::count)
        .sum();
  }

  private static double effectiveRequestsCap(AssertableApplicationContext context) {
    return context
        .getBean(MeterRegistry.class)
        .get("backpressure.cap.effective")
        .tag("dimension", "requests")
        .gauge()
        .value();
  }
}
