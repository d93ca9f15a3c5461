package io.backpressure.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.model.openai.OpenAiChatModel;
import io.backpressure.mock.MockProvider;
import io.backpressure.mock.MockProviderConfig;
import io.temporal.activity.ActivityInterface;
import io.temporal.activity.ActivityOptions;
import io.temporal.api.enums.v1.EventType;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import io.temporal.common.RetryOptions;
import io.temporal.spring.boot.TemporalOptionsCustomizer;
import io.temporal.spring.boot.autoconfigure.RootNamespaceAutoConfiguration;
import io.temporal.spring.boot.autoconfigure.ServiceStubsAutoConfiguration;
import io.temporal.spring.boot.autoconfigure.TestServerAutoConfiguration;
import io.temporal.testing.TestEnvironmentOptions;
import io.temporal.worker.WorkerFactory;
import io.temporal.workflow.Async;
import io.temporal.workflow.Promise;
import io.temporal.workflow.Workflow;
import io.temporal.workflow.WorkflowInterface;
import io.temporal.workflow.WorkflowMethod;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Temporal's own Spring Boot starter with ours, in real time on its in-process test server: the
 * starter's worker interceptor (transparent mode) turns the wrapped LangChain4j model's deferral,
 * inside an activity, into a durable timer in the workflow, and the retry is admitted.
 */
class TemporalStarterIT {

  @ActivityInterface
  public interface Chat {
    String chat(String prompt);
  }

  @WorkflowInterface
  public interface TwoCalls {
    @WorkflowMethod
    String run(String prompt);
  }

  /**
   * Two calls at once, with no Backpressure code: the transparent interceptor waits out the
   * deferral of whichever is admitted second.
   */
  public static class TwoCallsImpl implements TwoCalls {
    private final Chat chat =
        Workflow.newActivityStub(
            Chat.class,
            ActivityOptions.newBuilder()
                .setStartToCloseTimeout(Duration.ofSeconds(30))
                .setRetryOptions(RetryOptions.newBuilder().setMaximumAttempts(1).build())
                .build());

    @Override
    public String run(String prompt) {
      Promise<String> first = Async.function(chat::chat, prompt);
      Promise<String> second = Async.function(chat::chat, prompt);
      return first.get().length() + "+" + second.get().length();
    }
  }

  /** The test server in real time, as the gate's clock is. */
  @Configuration(proxyBeanMethods = false)
  static class RealTime {
    @Bean
    TemporalOptionsCustomizer<TestEnvironmentOptions.Builder> realTime() {
      return builder -> builder.setUseTimeskipping(false);
    }

    @Bean
    ChatActivity chatActivity(ChatModel model) {
      return new ChatActivity(model);
    }
  }

  /** The activity: one call of the (wrapped) model bean. */
  public static class ChatActivity implements Chat {
    private final ChatModel model;

    ChatActivity(ChatModel model) {
      this.model = model;
    }

    @Override
    public String chat(String prompt) {
      return model.chat(prompt);
    }
  }

  @Test
  void aDeferralInsideAnActivityBecomesADurableTimer() throws Exception {
    try (MockProvider provider =
        MockProvider.start(MockProviderConfig.builder().latencyMs(0, 0).build())) {
      new ApplicationContextRunner()
          .withConfiguration(
              AutoConfigurations.of(
                  ServiceStubsAutoConfiguration.class,
                  TestServerAutoConfiguration.class,
                  RootNamespaceAutoConfiguration.class,
                  BackpressureAutoConfiguration.class,
                  LangChain4jBackpressureAutoConfiguration.class,
                  TemporalBackpressureAutoConfiguration.class))
          .withPropertyValues(
              "spring.temporal.test-server.enabled=true",
              "spring.temporal.workers[0].task-queue=chat",
              "spring.temporal.workers[0].workflow-classes[0]=" + TwoCallsImpl.class.getName(),
              "spring.temporal.workers[0].activity-beans[0]=chatActivity",
              // One call per five seconds: the second of two concurrent calls is deferred for sure.
              "backpressure.targets.openai.requests-per-minute=12",
              "backpressure.targets.openai.requests-burst=1",
              "backpressure.targets.openai.tokens-per-minute=600000",
              "backpressure.targets.openai.priorities.P1=1",
              "backpressure.default-tenant=acme",
              "backpressure.default-priority=P1",
              "backpressure.temporal.interceptor=transparent")
          .withUserConfiguration(RealTime.class)
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
                assertThat(context).hasNotFailed();
                // Temporal's starter starts workers on ApplicationReadyEvent, which a context
                // runner never sends.
                WorkerFactory factory = context.getBean(WorkerFactory.class);
                factory.start();
                WorkflowClient client = context.getBean(WorkflowClient.class);
                TwoCalls workflow =
                    client.newWorkflowStub(
                        TwoCalls.class,
                        WorkflowOptions.newBuilder()
                            .setTaskQueue("chat")
                            .setWorkflowId("two-calls")
                            .setWorkflowExecutionTimeout(Duration.ofSeconds(60))
                            .build());

                String result = workflow.run("x".repeat(40));

                assertThat(result).matches("\\d+\\+\\d+");
                assertThat(provider.records())
                    .hasSize(2)
                    .allSatisfy(r -> assertThat(r.status()).isEqualTo(200));
                factory.shutdownNow();
                assertThat(client.fetchHistory("two-calls").getEvents())
                    .anySatisfy(
                        event ->
                            assertThat(event.getEventType())
                                .isEqualTo(EventType.EVENT_TYPE_TIMER_STARTED));
              });
    }
  }
}
