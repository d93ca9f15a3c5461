package io.backpressure.openai;

import static org.assertj.core.api.Assertions.assertThat;

import com.openai.client.OpenAIClient;
import com.openai.models.chat.completions.ChatCompletionCreateParams;
import io.backpressure.client.ActivityAdmitter;
import io.backpressure.client.GateContext;
import io.backpressure.client.test.MockAnswers;
import io.backpressure.core.Admission;
import io.backpressure.core.InMemoryGate;
import io.backpressure.core.Policy;
import io.backpressure.core.testing.RecordingGate;
import io.backpressure.mock.MockProvider;
import io.backpressure.temporal.Backpressure;
import io.backpressure.temporal.BackpressureInterceptor;
import io.temporal.activity.ActivityInterface;
import io.temporal.activity.ActivityOptions;
import io.temporal.api.enums.v1.EventType;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import io.temporal.client.WorkflowStub;
import io.temporal.common.RetryOptions;
import io.temporal.testing.TestEnvironmentOptions;
import io.temporal.testing.TestWorkflowEnvironment;
import io.temporal.worker.Worker;
import io.temporal.worker.WorkerFactory;
import io.temporal.worker.WorkerFactoryOptions;
import io.temporal.worker.WorkerOptions;
import io.temporal.workflow.Workflow;
import io.temporal.workflow.WorkflowInterface;
import io.temporal.workflow.WorkflowMethod;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A gated openai-java call inside a Temporal activity, on a worker with one activity slot: a
 * deferral ends the activity at once (the slot serves another activity meanwhile) and the workflow
 * waits on a durable timer, then the re-run redeems the booking and the call goes through.
 */
class OpenAIActivityIT {

  private static final Duration DELTA = Duration.ofSeconds(5);

  @ActivityInterface
  public interface AskActivities {
    String ask(String tenant, String prompt);

    long ping();
  }

  @WorkflowInterface
  public interface AskWorkflow {
    @WorkflowMethod
    String ask(String tenant, String prompt);
  }

  @WorkflowInterface
  public interface PingWorkflow {
    @WorkflowMethod
    long ping();
  }

  private static final ActivityOptions OPTIONS =
      ActivityOptions.newBuilder()
          .setStartToCloseTimeout(Duration.ofSeconds(30))
          .setRetryOptions(RetryOptions.newBuilder().setMaximumAttempts(1).build())
          .build();

  public static final class AskWorkflowImpl implements AskWorkflow {
    private final AskActivities activities = Workflow.newActivityStub(AskActivities.class, OPTIONS);

    @Override
    public String ask(String tenant, String prompt) {
      return Backpressure.run(Duration.ofMinutes(1), () -> activities.ask(tenant, prompt));
    }
  }

  public static final class PingWorkflowImpl implements PingWorkflow {
    private final AskActivities activities = Workflow.newActivityStub(AskActivities.class, OPTIONS);

    @Override
    public long ping() {
      return activities.ping();
    }
  }

  /** The activities: one gated provider call, and one ungated that only notes when it ran. */
  static final class AskActivitiesImpl implements AskActivities {
    private final OpenAIClient client;

    AskActivitiesImpl(OpenAIClient client) {
      this.client = client;
    }

    @Override
    public String ask(String tenant, String prompt) {
      ChatCompletionCreateParams params =
          ChatCompletionCreateParams.builder().model("gpt-4o-mini").addUserMessage(prompt).build();
      try (GateContext.Scope scope = GateContext.of(tenant, "P3").open()) {
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

    @Override
    public long ping() {
      return System.currentTimeMillis();
    }
  }

  @Test
  void aDeferredCallFreesTheSlotAndWaitsOnADurableTimer() throws Exception {
    Policy policy =
        Policy.builder("openai/gpt-4o-mini")
            .dimension("requests", 1.0 / DELTA.toSeconds(), 1)
            .tokensPerSecond(100_000)
            .priority("P1", 0.6)
            .priority("P3", 0.4)
            .build();
    RecordingGate gate = new RecordingGate(InMemoryGate.create(policy));
    List<Long> answeredAt = new CopyOnWriteArrayList<>();
    try (MockProvider provider = MockProvider.start(MockAnswers.atOnce(5).build());
        TestWorkflowEnvironment env =
            TestWorkflowEnvironment.newInstance(
                TestEnvironmentOptions.newBuilder().setUseTimeskipping(false).build())) {
      OpenAIClient client =
          GatedOpenAI.builder()
              .gate(gate)
              .admitter(ActivityAdmitter.create())
              .feedback(answer -> answeredAt.add(System.currentTimeMillis()))
              .clientOptions(options -> options.baseUrl(provider.baseUrl()).apiKey("sk-test"))
              .build();
      String queue = "q-" + UUID.randomUUID();
      WorkerFactory factory =
          WorkerFactory.newInstance(
              env.getWorkflowClient(),
              WorkerFactoryOptions.newBuilder()
                  .setWorkerInterceptors(BackpressureInterceptor.create())
                  .build());
      Worker worker =
          factory.newWorker(
              queue,
              WorkerOptions.newBuilder()
                  .setMaxConcurrentActivityExecutionSize(1)
                  .setDefaultDeadlockDetectionTimeout(10_000)
                  .build());
      worker.registerWorkflowImplementationTypes(AskWorkflowImpl.class, PingWorkflowImpl.class);
      worker.registerActivitiesImplementations(new AskActivitiesImpl(client));
      factory.start();
      try {
        WorkflowClient workflows = env.getWorkflowClient();
        WorkflowOptions options =
            WorkflowOptions.newBuilder()
                .setTaskQueue(queue)
                .setWorkflowExecutionTimeout(Duration.ofMinutes(2))
                .build();
        // The first call takes the only request the bucket holds.
        assertThat(workflows.newWorkflowStub(AskWorkflow.class, options).ask("quiet", "first"))
            .isNotNull();

        AskWorkflow noisy = workflows.newWorkflowStub(AskWorkflow.class, options);
        WorkflowClient.start(noisy::ask, "noisy", "second");
        awaitDeferral(gate);

        long pingedAt = workflows.newWorkflowStub(PingWorkflow.class, options).ping();

        assertThat(WorkflowStub.fromTyped(noisy).getResult(String.class)).isNotNull();
        List<Admission> admissions = gate.admissions();
        assertThat(admissions).hasSize(3);
        assertThat(admissions.get(1)).isInstanceOf(Admission.Deferred.class);
        assertThat(admissions.get(2)).isInstanceOf(Admission.Admitted.class);
        String booking = ((Admission.Deferred) admissions.get(1)).booking();
        assertThat(gate.requests().get(2).booking()).isEqualTo(booking);
        // The one slot ran another activity while the deferred call waited for its turn.
        assertThat(pingedAt).isLessThan(answeredAt.get(1));
        assertThat(((Admission.Deferred) admissions.get(1)).retryAfter())
            .isGreaterThan(Duration.ofSeconds(1));
        assertThat(provider.records()).extracting(r -> r.status()).containsExactly(200, 200);
        assertThat(gate.outstanding()).isZero();
        String noisyId = WorkflowStub.fromTyped(noisy).getExecution().getWorkflowId();
        assertThat(
                workflows.fetchHistory(noisyId).getEvents().stream()
                    .filter(e -> e.getEventType() == EventType.EVENT_TYPE_TIMER_STARTED)
                    .count())
            .isEqualTo(1);
      } finally {
        factory.shutdown();
        factory.awaitTermination(10, TimeUnit.SECONDS);
        client.close();
      }
    }
  }

  private static void awaitDeferral(RecordingGate gate) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
    while (gate.admissions().stream().noneMatch(a -> a instanceof Admission.Deferred)) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("timed out waiting for the deferral");
      }
      Thread.sleep(5);
    }
  }
}
