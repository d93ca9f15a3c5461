package io.backpressure.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.langchain4j.http.client.HttpClientBuilder;
import dev.langchain4j.http.client.jdk.JdkHttpClient;
import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.model.chat.listener.ChatModelListener;
import dev.langchain4j.model.chat.listener.ChatModelRequestContext;
import dev.langchain4j.model.openai.OpenAiChatModel;
import io.backpressure.client.DeferredException;
import io.backpressure.client.ExpiredException;
import io.backpressure.client.TokenEstimator;
import io.backpressure.core.InMemoryGate;
import io.backpressure.core.ManualClock;
import io.backpressure.core.Ticker;
import io.backpressure.core.feedback.ProviderSignal;
import io.backpressure.langchain4j.GatedChatModel;
import io.backpressure.langchain4j.SendCheckingHttpClientBuilder;
import io.backpressure.mock.MockProvider;
import io.backpressure.mock.MockProviderConfig;
import io.backpressure.mock.RequestRecord;
import io.backpressure.springai.BackpressureAdvisor;
import io.backpressure.springai.test.MockOpenAi;
import io.backpressure.temporal.BackpressureInterceptor;
import io.temporal.common.interceptors.WorkerInterceptor;
import io.temporal.spring.boot.TemporalOptionsCustomizer;
import io.temporal.worker.WorkerFactoryOptions;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.ai.chat.client.ChatClient;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.ResolvableType;
import org.springframework.core.env.Environment;

/**
 * The starter's framework beans around the real Spring AI and LangChain4j OpenAI models and the
 * mock provider.
 */
class FrameworkBeansTest {
  private MockProvider provider;
  private ApplicationContextRunner runner;

  @BeforeEach
  void start() throws Exception {
    provider = MockProvider.start(MockProviderConfig.builder().latencyMs(0, 0).build());
    runner =
        new ApplicationContextRunner()
            .withConfiguration(
                AutoConfigurations.of(
                    BackpressureAutoConfiguration.class,
                    SpringAiBackpressureAutoConfiguration.class,
                    LangChain4jBackpressureAutoConfiguration.class,
                    TemporalBackpressureAutoConfiguration.class))
            .withBean(Ticker.class, ManualClock::new)
            .withPropertyValues(
                "backpressure.targets.openai.name=openai/gpt-4o-mini",
                "backpressure.targets.openai.requests-per-minute=60",
                "backpressure.targets.openai.requests-burst=1",
                "backpressure.targets.openai.tokens-per-minute=600000",
                "backpressure.targets.openai.priorities.P1=0.7",
                "backpressure.targets.openai.priorities.P2=0.3",
                "backpressure.default-tenant=acme",
                "backpressure.default-priority=P2",
                // The clock stands still: a deferred call is thrown, not waited out.
                "backpressure.max-wait=0");
  }

  @AfterEach
  void stop() {
    provider.close();
  }

  @Test
  void theAdvisorBeanGatesAChatClientAndReleasesWithTrueUsage() {
    runner.run(
        context -> {
          BackpressureAdvisor advisor = context.getBean(BackpressureAdvisor.class);
          ChatClient chat =
              ChatClient.builder(MockOpenAi.chatModel(provider, Duration.ofSeconds(20)))
                  .defaultAdvisors(advisor)
                  .build();

          assertThat(chat.prompt("x".repeat(400)).call().content()).isNotEmpty();
          assertThatThrownBy(() -> chat.prompt("x".repeat(400)).call().content())
              .isInstanceOfSatisfying(
                  DeferredException.class,
                  e ->
                      assertThat(e.retryAfter())
                          .isPositive()
                          .isLessThanOrEqualTo(Duration.ofSeconds(1)));

          assertThat(provider.records()).hasSize(1);
          RequestRecord record = provider.records().get(0);
          // The clock stands still, so the global token bucket is down by exactly what was
          // reconciled:
          // the provider's count, not the estimate of 100.
          InMemoryGate gate = (InMemoryGate) context.getBean(BackpressureGates.class).defaultGate();
          long used = record.promptTokens() + record.completionTokens();
          assertThat(used).isGreaterThan(100);
          assertThat(gate.levels().global().get("tokens")).isEqualTo(10_000.0 - used);
        });
  }

  @Test
  void withAMaxWaitTheAdvisorAndTheDecoratorsWaitAndACallWhoseTurnComesLaterExpiresAtOnce() {
    runner
        // The second call's turn is a second away on the stopped clock: past 100 ms of waiting.
        .withPropertyValues("backpressure.max-wait=100ms")
        .withBean(
            ChatModel.class,
            () ->
                OpenAiChatModel.builder()
                    .baseUrl(provider.baseUrl())
                    .apiKey("sk-mock")
                    .modelName("gpt-4o-mini")
                    .maxRetries(0)
                    .timeout(Duration.ofSeconds(20))
                    .build())
        .run(
            context -> {
              ChatClient chat =
                  ChatClient.builder(MockOpenAi.chatModel(provider, Duration.ofSeconds(20)))
                      .defaultAdvisors(context.getBean(BackpressureAdvisor.class))
                      .build();
              assertThat(chat.prompt("hello").call().content()).isNotEmpty();
              assertThatThrownBy(() -> chat.prompt("hello").call().content())
                  .isInstanceOf(ExpiredException.class);
              assertThatThrownBy(() -> context.getBean(ChatModel.class).chat("hello"))
                  .isInstanceOf(ExpiredException.class);
              assertThat(provider.records()).hasSize(1);
            });
  }

  @Test
  void aMaxWaitOutsideZeroToAnHourFailsStartUpNamingIt() {
    runner
        .withPropertyValues("backpressure.max-wait=2h")
        .run(
            context ->
                assertThat(context.getStartupFailure())
                    .rootCause()
                    .hasMessageContaining("backpressure.max-wait")
                    .hasMessageContaining("must be in [0, 1h]"));
  }

  @Test
  void aLangChain4jChatModelBeanIsWrappedAndDefersWithDelta() {
    runner
        .withBean(
            ChatModel.class,
            () ->
                OpenAiChatModel.builder()
                    .baseUrl(provider.baseUrl())
                    .apiKey("sk-mock")
                    .modelName("gpt-4o-mini")
                    .maxRetries(0)
                    .timeout(Duration.ofSeconds(20))
                    .build())
        .withBean(TokenEstimator.class, () -> TokenEstimator.charsPerToken(2))
        .run(
            context -> {
              ChatModel model = context.getBean(ChatModel.class);
              assertThat(model).isInstanceOf(GatedChatModel.class);

              assertThat(model.chat("hello")).isNotEmpty();
              assertThatThrownBy(() -> model.chat("hello")).isInstanceOf(DeferredException.class);
              assertThat(provider.records())
                  .hasSize(1)
                  .allSatisfy(r -> assertThat(r.status()).isEqualTo(200));
            });
  }

  /**
   * A model built as LangChain4j's Spring Boot starters build theirs, from an HTTP client builder
   * bean of its own. Mutation tried: the builder bean left unwrapped (the late call is sent).
   */
  @Test
  void aModelBuiltFromAnHttpClientBuilderBeanAsksAgainWhenItsCallLeavesLate() {
    runner
        .withPropertyValues(
            "backpressure.targets.openai.safe-window=1s", "mock.base-url=" + provider.baseUrl())
        .withUserConfiguration(ModelFromAnHttpClientBuilderBean.class)
        .run(
            context -> {
              assertThat(context.getBean("openAiChatModelHttpClientBuilder"))
                  .isInstanceOf(SendCheckingHttpClientBuilder.class);
              ChatModel model = context.getBean(ChatModel.class);
              assertThat(model).isInstanceOf(GatedChatModel.class);

              // Admitted, then 100 ms pass (the bound is 50 ms) and the provider asks for a pause:
              // asked again before it leaves, the call is deferred and nothing is sent.
              assertThatThrownBy(() -> model.chat("hello")).isInstanceOf(DeferredException.class);
              assertThat(provider.records()).isEmpty();
            });
  }

  /**
   * The beans of LangChain4j's OpenAI starter, in its shape; a listener, which runs after the
   * admission and before the request is built, lets 100 ms of the gate's clock pass and reports a
   * provider's pause to the gate.
   */
  @Configuration(proxyBeanMethods = false)
  static class ModelFromAnHttpClientBuilderBean {
    @Bean("openAiChatModelHttpClientBuilder")
    HttpClientBuilder openAiChatModelHttpClientBuilder() {
      return JdkHttpClient.builder();
    }

    @Bean
    ChatModel openAiChatModel(
        @Qualifier("openAiChatModelHttpClientBuilder") HttpClientBuilder http,
        Environment environment,
        ObjectProvider<ChatModelListener> listeners) {
      return OpenAiChatModel.builder()
          .httpClientBuilder(http)
          .baseUrl(environment.getRequiredProperty("mock.base-url"))
          .apiKey("sk-mock")
          .modelName("gpt-4o-mini")
          .maxRetries(0)
          .timeout(Duration.ofSeconds(20))
          .listeners(listeners.orderedStream().toList())
          .build();
    }

    @Bean
    ChatModelListener slowAndPaused(Ticker clock, ObjectProvider<BackpressureGates> gates) {
      return new ChatModelListener() {
        @Override
        public void onRequest(ChatModelRequestContext request) {
          ((ManualClock) clock).advance(Duration.ofMillis(100));
          gates
              .getObject()
              .defaultGate()
              .feedback(null, ProviderSignal.rateLimited("requests", Duration.ofSeconds(2)));
        }
      };
    }
  }

  @Test
  void theTemporalCustomizerAddsTheInterceptorAfterThoseAlreadySet() {
    runner
        .withPropertyValues("backpressure.temporal.interceptor=transparent")
        .run(
            context -> {
              @SuppressWarnings("unchecked")
              TemporalOptionsCustomizer<WorkerFactoryOptions.Builder> customizer =
                  (TemporalOptionsCustomizer<WorkerFactoryOptions.Builder>)
                      context
                          .getBeanProvider(
                              ResolvableType.forClassWithGenerics(
                                  TemporalOptionsCustomizer.class,
                                  WorkerFactoryOptions.Builder.class))
                          .getObject();
              WorkerInterceptor tracing =
                  new io.temporal.common.interceptors.WorkerInterceptorBase();

              WorkerFactoryOptions options =
                  customizer
                      .customize(WorkerFactoryOptions.newBuilder().setWorkerInterceptors(tracing))
                      .build();

              List<WorkerInterceptor> interceptors = List.of(options.getWorkerInterceptors());
              assertThat(interceptors).hasSize(2).first().isSameAs(tracing);
              assertThat(interceptors.get(1)).isInstanceOf(BackpressureInterceptor.class);
            });
  }
}
