package io.backpressure.openai;

import static org.assertj.core.api.Assertions.assertThat;

import com.openai.client.OpenAIClient;
import com.openai.models.chat.completions.ChatCompletionCreateParams;
import io.backpressure.client.ActivityAdmitter;
import io.backpressure.client.GateContext;
import io.backpressure.core.Admission;
import io.backpressure.core.InMemoryGate;
import io.backpressure.core.Policy;
import io.backpressure.core.testing.RecordingGate;
import io.backpressure.mock.CompletionTokens;
import io.backpressure.mock.MockProvider;
import io.backpressure.mock.MockProviderConfig;
import io.backpressure.mock.RequestRecord;
import io.backpressure.mock.limit.LimitSpec;
import io.backpressure.mock.limit.WindowModel;
import io.backpressure.temporal.Backpressure;
import io.backpressure.temporal.BackpressureInterceptor;
import io.temporal.activity.ActivityInterface;
import io.temporal.activity.ActivityOptions;
import io.temporal.client.WorkflowOptions;
import io.temporal.common.RetryOptions;
import io.temporal.testing.TestEnvironmentOptions;
import io.temporal.testing.TestWorkflowEnvironment;
import io.temporal.worker.Worker;
import io.temporal.worker.WorkerFactory;
import io.temporal.worker.WorkerFactoryOptions;
import io.temporal.workflow.Workflow;
import io.temporal.workflow.WorkflowInterface;
import io.temporal.workflow.WorkflowMethod;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A 429 the gate did not foresee, inside a Temporal activity: the SDK sends the request once (its
 * retries are off, although {@code maxRetries(5)} was asked for), the attempt fails, and the
 * activity's retry policy runs the next attempt through the gate. Every request the provider saw
 * had an admission of its own.
 */
class OpenAIActivityRetryIT {

  @ActivityInterface
  public interface AskActivities {
    String ask(String prompt);
  }

  @WorkflowInterface
  public interface AskTwiceWorkflow {
    @WorkflowMethod
    String ask();
  }

  public static final class AskTwiceWorkflowImpl implements AskTwiceWorkflow {
    private final AskActivities activities =
        Workflow.newActivityStub(
            AskActivities.class,
            ActivityOptions.newBuilder()
                .setStartToCloseTimeout(Duration.ofSeconds(30))
                .setRetryOptions(
                    RetryOptions.newBuilder()
                        .setInitialInterval(Duration.ofSeconds(1))
                        .setBackoffCoefficient(1)
                        .setMaximumAttempts(30)
                        .build())
                .build());

    @Override
    public String ask() {
      Backpressure.run(Duration.ofMinutes(1), () -> activities.ask("first"));
      return Backpressure.run(Duration.ofMinutes(1), () -> activities.ask("second"));
    }
  }

  static final class AskActivitiesImpl implements AskActivities {
    private final OpenAIClient client;

    AskActivitiesImpl(OpenAIClient client) {
      this.client = client;
    }

    @Override
    public String ask(String prompt) {
      ChatCompletionCreateParams params =
          ChatCompletionCreateParams.builder().model("gpt-4o-mini").addUserMessage(prompt).build();
      try (GateContext.Scope scope = GateContext.of("acme", "P1").open()) {
        return client
            .chat()
            .completions()
            .create(params)
            .choices()
            .get(0)
            .message()
            .content()
            .orElse("");
      }
    }
  }

  @Test
  void a429FailsTheAttemptOnceAndTheNextAttemptIsAdmittedAgain() throws Exception {
    // The gate believes in 100 requests/s; the provider allows one request in any five seconds.
    RecordingGate gate =
        new RecordingGate(
            InMemoryGate.create(
                Policy.builder("openai/gpt-4o-mini")
                    .requestsPerSecond(100)
                    .tokensPerSecond(100_000)
                    .priority("P1", 1)
                    .build()));
    MockProviderConfig config =
        MockProviderConfig.builder()
            .latencyMs(0, 0)
            .completionTokens(new CompletionTokens.Fixed(5))
            .requests(LimitSpec.of(WindowModel.SLIDING, 1, Duration.ofSeconds(5)))
            .build();
    try (MockProvider provider = MockProvider.start(config);
        TestWorkflowEnvironment env =
            TestWorkflowEnvironment.newInstance(
                TestEnvironmentOptions.newBuilder().setUseTimeskipping(false).build())) {
      OpenAIClient client =
          GatedOpenAI.builder()
              .gate(gate)
              .admitter(ActivityAdmitter.create())
              .clientOptions(
                  options -> options.baseUrl(provider.baseUrl()).apiKey("sk-test").maxRetries(5))
              .build();
      String queue = "q-" + UUID.randomUUID();
      WorkerFactory factory =
          WorkerFactory.newInstance(
              env.getWorkflowClient(),
              WorkerFactoryOptions.newBuilder()
                  .setWorkerInterceptors(BackpressureInterceptor.create())
                  .build());
      Worker worker = factory.newWorker(queue);
      worker.registerWorkflowImplementationTypes(AskTwiceWorkflowImpl.class);
      worker.registerActivitiesImplementations(new AskActivitiesImpl(client));
      factory.start();
      try {
        AskTwiceWorkflow workflow =
            env.getWorkflowClient()
                .newWorkflowStub(
                    AskTwiceWorkflow.class,
                    WorkflowOptions.newBuilder()
                        .setTaskQueue(queue)
                        .setWorkflowExecutionTimeout(Duration.ofMinutes(2))
                        .build());

        assertThat(workflow.ask()).isNotNull();

        assertThat(provider.records())
            .extracting(RequestRecord::status)
            .contains(429)
            .endsWith(200)
            .startsWith(200);
        long admitted =
            gate.admissions().stream().filter(a -> a instanceof Admission.Admitted).count();
        assertThat(provider.records()).hasSize((int) admitted);
        assertThat(gate.outstanding()).isZero();
      } finally {
        factory.shutdown();
        factory.awaitTermination(10, TimeUnit.SECONDS);
        client.close();
      }
    }
  }
}
