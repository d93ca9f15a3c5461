package io.backpressure.temporal;

import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import io.temporal.common.interceptors.WorkerInterceptor;
import io.temporal.testing.TestEnvironmentOptions;
import io.temporal.testing.TestWorkflowEnvironment;
import io.temporal.worker.Worker;
import io.temporal.worker.WorkerFactory;
import io.temporal.worker.WorkerFactoryOptions;
import io.temporal.worker.WorkerOptions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/** Temporal's in-process test server in real time, and real workers on it. */
final class Harness implements AutoCloseable {
  private final TestWorkflowEnvironment env =
      TestWorkflowEnvironment.newInstance(
          TestEnvironmentOptions.newBuilder().setUseTimeskipping(false).build());
  private final List<WorkerFactory> factories = new ArrayList<>();

  WorkflowClient client() {
    return env.getWorkflowClient();
  }

  /**
   * Starts a worker factory with one worker on {@code queue}.
   *
   * @param interceptor the worker interceptor, or {@code null} for none
   * @param slots the worker's activity slots
   */
  WorkerFactory start(
      String queue,
      WorkerInterceptor interceptor,
      int slots,
      ChatActivities activities,
      Class<?>... workflows) {
    WorkerFactoryOptions.Builder options = WorkerFactoryOptions.newBuilder();
    if (interceptor != null) {
      options.setWorkerInterceptors(interceptor);
    }
    WorkerFactory factory = WorkerFactory.newInstance(client(), options.build());
    Worker worker =
        factory.newWorker(
            queue,
            WorkerOptions.newBuilder()
                .setMaxConcurrentActivityExecutionSize(slots)
                // No sticky task queue: a real server moves a stopped worker's sticky tasks back to
                // the shared queue after a timeout, the test server never does, so a replacement
                // worker would never see the workflow again.
                .setStickyQueueScheduleToStartTimeout(Duration.ZERO)
                // First workflow tasks load many classes; on a busy two-core machine that can pass
                // the default one-second deadlock detector and cost a workflow task timeout.
                .setDefaultDeadlockDetectionTimeout(10_000)
                .build());
    worker.registerWorkflowImplementationTypes(workflows);
    worker.registerActivitiesImplementations(activities);
    factory.start();
    factories.add(factory);
    return factory;
  }

  /** A worker that is never started, for replaying histories. */
  Worker replayer(WorkerInterceptor interceptor, Class<?>... workflows) {
    WorkerFactoryOptions.Builder options = WorkerFactoryOptions.newBuilder();
    if (interceptor != null) {
      options.setWorkerInterceptors(interceptor);
    }
    Worker worker =
        WorkerFactory.newInstance(client(), options.build())
            .newWorker("replay-" + UUID.randomUUID());
    worker.registerWorkflowImplementationTypes(workflows);
    return worker;
  }

  ChatWorkflow workflow(String queue, String workflowId) {
    return client()
        .newWorkflowStub(
            ChatWorkflow.class,
            WorkflowOptions.newBuilder()
                .setTaskQueue(queue)
                .setWorkflowId(workflowId)
                .setWorkflowExecutionTimeout(Duration.ofMinutes(1))
                .build());
  }

  /** Stops {@code factory}, as a redeployed worker would. */
  static void kill(WorkerFactory factory) throws InterruptedException {
    factory.shutdown();
    factory.awaitTermination(10, TimeUnit.SECONDS);
  }

  static void await(String what, Duration timeout, BooleanSupplier condition)
      throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("timed out waiting for " + what);
      }
      Thread.sleep(5);
    }
  }

  @Override
  public void close() throws InterruptedException {
    for (WorkerFactory factory : factories) {
      kill(factory);
    }
    env.close();
  }
}
