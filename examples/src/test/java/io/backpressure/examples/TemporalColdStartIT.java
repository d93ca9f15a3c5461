package io.backpressure.examples;

import static org.assertj.core.api.Assertions.assertThat;

import com.openai.client.OpenAIClient;
import com.openai.models.chat.completions.ChatCompletionCreateParams;
import io.backpressure.client.ActivityAdmitter;
import io.backpressure.client.GateContext;
import io.backpressure.core.Policy;
import io.backpressure.core.feedback.FeedbackPolicy;
import io.backpressure.mock.MockProvider;
import io.backpressure.mock.MockProviderConfig;
import io.backpressure.mock.RequestRecord;
import io.backpressure.mock.limit.LimitSpec;
import io.backpressure.mock.limit.WindowModel;
import io.backpressure.openai.GatedOpenAI;
import io.backpressure.redis.RedisGateConfig;
import io.backpressure.redis.ResilientRedisGate;
import io.backpressure.redis.TestRedis;
import io.backpressure.temporal.Backpressure;
import io.backpressure.temporal.BackpressureInterceptor;
import io.temporal.activity.ActivityInterface;
import io.temporal.activity.ActivityOptions;
import io.temporal.api.enums.v1.EventType;
import io.temporal.api.history.v1.HistoryEvent;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowException;
import io.temporal.client.WorkflowOptions;
import io.temporal.client.WorkflowStub;
import io.temporal.common.RetryOptions;
import io.temporal.testing.TestEnvironmentOptions;
import io.temporal.testing.TestWorkflowEnvironment;
import io.temporal.worker.Worker;
import io.temporal.worker.WorkerFactory;
import io.temporal.worker.WorkerFactoryOptions;
import io.temporal.workflow.Workflow;
import io.temporal.workflow.WorkflowInterface;
import io.temporal.workflow.WorkflowMethod;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A new Temporal application's first run: sixty workflows started at once by two tenants, each
 * making one call through a cold gated openai-java client in an activity, against a provider that
 * answers at most five requests in each one-second window and a gate configured with that cap and
 * period. With Redis up, and with Redis down at start-up (the default LOCAL fail mode), every
 * workflow completes and no 429 reaches workflow code: the activities' retries are off, so a 429
 * that left the gated client would fail its workflow. The 429s the provider sent anyway (calls
 * admitted in different seconds that land in one provider window while the client warms up) are
 * absorbed by the client, which reports them to the gate and asks it again. Each case prints its
 * figures. In real time: each case takes at least the twelve seconds the cap needs.
 */
class TemporalColdStartIT {
  private static final int WORKFLOWS = 60;
  private static final int REQUESTS_PER_SECOND = 5;

  private static TestWorkflowEnvironment temporal;

  @ActivityInterface
  public interface AskActivities {
    String ask(String tenant, String priority, String prompt);
  }

  @WorkflowInterface
  public interface AskWorkflow {
    @WorkflowMethod
    String ask(String tenant, String priority, String prompt);
  }

  /** Waits out every deferral on a durable timer; any other activity failure fails the workflow. */
  public static final class AskWorkflowImpl implements AskWorkflow {
    private final AskActivities activities =
        Workflow.newActivityStub(
            AskActivities.class,
            ActivityOptions.newBuilder()
                .setStartToCloseTimeout(Duration.ofSeconds(30))
                .setRetryOptions(RetryOptions.newBuilder().setMaximumAttempts(1).build())
                .build());

    @Override
    public String ask(String tenant, String priority, String prompt) {
      return Backpressure.run(
          Duration.ofMinutes(2), () -> activities.ask(tenant, priority, prompt));
    }
  }

  /** One gated chat completion for the tenant and class given. */
  static final class AskActivitiesImpl implements AskActivities {
    private final OpenAIClient client;

    AskActivitiesImpl(OpenAIClient client) {
      this.client = client;
    }

    @Override
    public String ask(String tenant, String priority, String prompt) {
      ChatCompletionCreateParams params =
          ChatCompletionCreateParams.builder().model("gpt-4o-mini").addUserMessage(prompt).build();
      try (GateContext.Scope scope = GateContext.of(tenant, priority).open()) {
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

  /** What one case measured. */
  record Outcome(
      String label,
      List<String> failedWorkflows,
      List<String> activityFailures,
      long answered,
      long throttled,
      long deferrals,
      long decidedWithoutRedis,
      double seconds) {
    @Override
    public String toString() {
      return String.format(
          Locale.ROOT,
          "Temporal cold start, %s: %d workflows, %d failed, %.1f s; provider: %d answered, %d"
              + " 429s absorbed; %d deferrals on durable timers; %d calls decided without Redis",
          label,
          WORKFLOWS,
          failedWorkflows.size(),
          seconds,
          answered,
          throttled,
          deferrals,
          decidedWithoutRedis);
    }
  }

  private static Outcome redisUp;
  private static Outcome redisDown;

  /** Runs both cases at once, each with its own provider, gate and task queue, on one server. */
  @BeforeAll
  static void runBothCases() throws Exception {
    temporal =
        TestWorkflowEnvironment.newInstance(
            TestEnvironmentOptions.newBuilder().setUseTimeskipping(false).build());
    int closedPort;
    try (ServerSocket socket = new ServerSocket(0)) {
      closedPort = socket.getLocalPort();
    }
    String redisUrl = TestRedis.shared().url();
    ExecutorService cases = Executors.newFixedThreadPool(2);
    try {
      Future<Outcome> up =
          cases.submit(
              () ->
                  run(
                      "Redis up",
                      RedisGateConfig.builder(redisUrl).keyPrefix(TestRedis.freshPrefix()),
                      true));
      Future<Outcome> down =
          cases.submit(
              () ->
                  run(
                      "Redis down at start-up",
                      RedisGateConfig.builder("redis://127.0.0.1:" + closedPort)
                          .connectTimeout(Duration.ofMillis(200)),
                      false));
      redisUp = up.get(5, TimeUnit.MINUTES);
      redisDown = down.get(5, TimeUnit.MINUTES);
    } finally {
      cases.shutdownNow();
    }
    System.out.println(redisUp);
    System.out.println(redisDown);
  }

  @AfterAll
  static void stopTemporal() {
    temporal.close();
  }

  @Test
  void withRedisUp_noWorkflowFailsAndNo429ReachesTheWorkflow() {
    assertNoFailure(redisUp);
  }

  @Test
  void withRedisDownAtStartUp_noWorkflowFailsAndNo429ReachesTheWorkflow() {
    assertNoFailure(redisDown);
    assertThat(redisDown.decidedWithoutRedis())
        .as("every admission was decided by the local gate")
        .isPositive();
  }

  private static void assertNoFailure(Outcome outcome) {
    assertThat(outcome.failedWorkflows()).as("failed workflows").isEmpty();
    assertThat(outcome.activityFailures())
        .as("activity failures that reached workflow code")
        .isEmpty();
    assertThat(outcome.answered()).as("calls the provider answered").isEqualTo(WORKFLOWS);
    assertThat(outcome.deferrals())
        .as("the cap held calls back, so the run was at the cap")
        .isPositive();
  }

  /**
   * Runs the sixty workflows through a worker whose gate is on {@code redis}; with {@code redisUp},
   * the worker first waits for the gate's first connection, as the README's Redis example does, so
   * that the run is gated by Redis from its first call.
   */
  private static Outcome run(String label, RedisGateConfig.Builder redis, boolean redisUp)
      throws Exception {
    Policy policy =
        Policy.builder("openai/gpt-4o-mini")
            .requestsPerSecond(REQUESTS_PER_SECOND)
            .tokensPerSecond(100_000)
            // The provider counts per second: its windows, and its limit headers (5, not 300).
            .providerPeriod(Duration.ofSeconds(1))
            .feedback(FeedbackPolicy.builder().period(Duration.ofSeconds(1)).build())
            .priority("P1", 0.7)
            .priority("P3", 0.3)
            .build();
    MockProviderConfig provider =
        MockProviderConfig.builder()
            .requests(LimitSpec.perSecond(WindowModel.FIXED, REQUESTS_PER_SECOND))
            .latencyMs(50, 150)
            .build();
    String queue = "cold-start-" + UUID.randomUUID();
    try (MockProvider mock = MockProvider.start(provider);
        ResilientRedisGate gate = ResilientRedisGate.open(redis.policy(policy).build())) {
      if (redisUp) {
        assertThat(gate.awaitConnected(Duration.ofSeconds(30)))
            .as("the gate reached Redis within 30 s")
            .isTrue();
      }
      OpenAIClient client =
          GatedOpenAI.builder()
              .gate(gate)
              .admitter(ActivityAdmitter.create())
              .clientOptions(options -> options.baseUrl(mock.baseUrl()).apiKey("sk-test"))
              .build();
      WorkerFactory factory =
          WorkerFactory.newInstance(
              temporal.getWorkflowClient(),
              WorkerFactoryOptions.newBuilder()
                  .setWorkerInterceptors(BackpressureInterceptor.create())
                  .build());
      Worker worker = factory.newWorker(queue);
      worker.registerWorkflowImplementationTypes(AskWorkflowImpl.class);
      worker.registerActivitiesImplementations(new AskActivitiesImpl(client));
      factory.start();
      try {
        WorkflowClient workflows = temporal.getWorkflowClient();
        long start = System.nanoTime();
        List<WorkflowStub> runs = new ArrayList<>();
        for (int i = 0; i < WORKFLOWS; i++) {
          AskWorkflow workflow =
              workflows.newWorkflowStub(
                  AskWorkflow.class,
                  WorkflowOptions.newBuilder()
                      .setTaskQueue(queue)
                      .setWorkflowId(queue + "-" + i)
                      .setWorkflowExecutionTimeout(Duration.ofMinutes(3))
                      .build());
          boolean acme = i % 2 == 0;
          WorkflowClient.start(
              workflow::ask, acme ? "acme" : "globex", acme ? "P1" : "P3", "question " + i);
          runs.add(WorkflowStub.fromTyped(workflow));
        }
        List<String> failed = new ArrayList<>();
        for (WorkflowStub run : runs) {
          try {
            run.getResult(3, TimeUnit.MINUTES, String.class);
          } catch (WorkflowException e) {
            failed.add(run.getExecution().getWorkflowId() + ": " + e.getCause());
          }
        }
        double seconds = (System.nanoTime() - start) / 1e9;

        List<String> activityFailures = new ArrayList<>();
        long deferrals = 0;
        for (WorkflowStub run : runs) {
          for (HistoryEvent event :
              workflows.fetchHistory(run.getExecution().getWorkflowId()).getEvents()) {
            if (event.getEventType() == EventType.EVENT_TYPE_ACTIVITY_TASK_FAILED) {
              String type =
                  event
                      .getActivityTaskFailedEventAttributes()
                      .getFailure()
                      .getApplicationFailureInfo()
                      .getType();
              if (type.equals(Backpressure.DEFERRED)) {
                deferrals++;
              } else {
                activityFailures.add(type);
              }
            }
          }
        }
        List<RequestRecord> records = mock.records();
        return new Outcome(
            label,
            failed,
            activityFailures,
            records.stream().filter(r -> r.status() == 200).count(),
            records.stream().filter(r -> r.status() == 429).count(),
            deferrals,
            gate.failOpen().ungatedDecisions(),
            seconds);
      } finally {
        factory.shutdownNow();
        factory.awaitTermination(10, TimeUnit.SECONDS);
        client.close();
      }
    }
  }
}
