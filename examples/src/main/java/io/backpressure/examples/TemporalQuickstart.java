package io.backpressure.examples;

import io.backpressure.core.Cost;
import io.backpressure.core.Gate;
import io.backpressure.core.InMemoryGate;
import io.backpressure.core.Policy;
import io.backpressure.temporal.ActivityGate;
import io.backpressure.temporal.Backpressure;
import io.backpressure.temporal.BackpressureInterceptor;
import io.backpressure.temporal.GatedRequest;
import io.temporal.activity.ActivityInterface;
import io.temporal.activity.ActivityOptions;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import io.temporal.common.RetryOptions;
import io.temporal.serviceclient.WorkflowServiceStubs;
import io.temporal.worker.Worker;
import io.temporal.worker.WorkerFactory;
import io.temporal.worker.WorkerFactoryOptions;
import io.temporal.workflow.Workflow;
import io.temporal.workflow.WorkflowInterface;
import io.temporal.workflow.WorkflowMethod;
import java.time.Duration;

/** On Temporal: the gate runs in the activity, and a deferred call waits on a durable timer. */
public final class TemporalQuickstart {
  static final String TASK_QUEUE = "chat";

  /** The activity's input tells the gate whose call it is, how urgent, and what it costs. */
  public record ChatInput(String tenant, String priority, String prompt, Long maxTokens)
      implements GatedRequest {
    @Override
    public Cost cost() {
      return Cost.requests(1)
          .tokens(prompt.length() / 4.0); // one request, the estimated prompt tokens
    }
  }

  @ActivityInterface
  public interface ChatActivities {
    String chat(ChatInput input);
  }

  /** Activity side: admit, call, release with the true usage; a deferral frees the slot at once. */
  public static final class ChatActivitiesImpl implements ChatActivities {
    private final ActivityGate gate;

    public ChatActivitiesImpl(Gate gate) {
      this.gate = ActivityGate.of(gate);
    }

    @Override
    public String chat(ChatInput input) {
      // README activity: begin
      return gate.call(
          input, () -> callModel(input), reply -> Cost.requests(1).tokens(reply.length() / 4.0));
      // README activity: end
    }

    /**
     * Stands in for your LLM client, built with its own retries off (openai-java: maxRetries(0)).
     */
    private static String callModel(ChatInput input) {
      return "reply to " + input.tenant() + ": " + input.prompt();
    }
  }

  @WorkflowInterface
  public interface ChatWorkflow {
    @WorkflowMethod
    String chat(ChatInput input);
  }

  /** Workflow side: while the gate defers the call, sleep on a durable timer and run it again. */
  public static final class ChatWorkflowImpl implements ChatWorkflow {
    private final ChatActivities activities =
        Workflow.newActivityStub(
            ChatActivities.class,
            ActivityOptions.newBuilder()
                .setStartToCloseTimeout(Duration.ofMinutes(2))
                // Deferrals inside Backpressure.run are not attempts; these retries are for real
                // errors.
                .setRetryOptions(RetryOptions.newBuilder().setMaximumAttempts(5).build())
                .build());

    @Override
    public String chat(ChatInput input) {
      // README workflow: begin
      return Backpressure.run(Duration.ofMinutes(5), () -> activities.chat(input));
      // README workflow: end
    }
  }

  /** Starts a worker that runs both sides; the interceptor carries deferrals and bookings. */
  public static WorkerFactory startWorker(WorkflowClient client, Gate gate) {
    WorkerFactory factory =
        WorkerFactory.newInstance(
            client,
            WorkerFactoryOptions.newBuilder()
                .setWorkerInterceptors(BackpressureInterceptor.create())
                .build());
    Worker worker = factory.newWorker(TASK_QUEUE);
    worker.registerWorkflowImplementationTypes(ChatWorkflowImpl.class);
    worker.registerActivitiesImplementations(new ChatActivitiesImpl(gate));
    factory.start();
    return factory;
  }

  /**
   * Against a Temporal server on localhost:7233 (for example {@code temporal server start-dev}).
   */
  public static void main(String[] args) {
    WorkflowServiceStubs service = WorkflowServiceStubs.newLocalServiceStubs();
    WorkflowClient client = WorkflowClient.newInstance(service);
    Gate gate =
        InMemoryGate.create(
            Policy.builder("openai/gpt-4o")
                .requestsPerMinute(3_600)
                .tokensPerMinute(720_000)
                .priority("P1", 0.5)
                .priority("P2", 0.3)
                .priority("P3", 0.2)
                .build()); // or the Redis gate, shared by every worker
    WorkerFactory factory = startWorker(client, gate);
    ChatWorkflow workflow =
        client.newWorkflowStub(
            ChatWorkflow.class, WorkflowOptions.newBuilder().setTaskQueue(TASK_QUEUE).build());
    System.out.println(workflow.chat(new ChatInput("acme", "P1", "Say hello", 256L)));
    factory.shutdown();
    service.shutdown();
  }
}
