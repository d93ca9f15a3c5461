package io.backpressure.eval.real;

import static org.assertj.core.api.Assertions.assertThat;

import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import io.temporal.serviceclient.WorkflowServiceStubs;
import io.temporal.serviceclient.WorkflowServiceStubsOptions;
import io.temporal.worker.WorkerFactory;
import io.temporal.workflow.Workflow;
import io.temporal.workflow.WorkflowInterface;
import io.temporal.workflow.WorkflowMethod;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The loopback test server keeps real time: a durable timer takes its whole duration. A wall-clock
 * test over gRPC to a server of its own, so an integration test.
 */
class LoopbackTestServerIT {

  @WorkflowInterface
  public interface Sleeper {
    /** Sleeps {@code millis} on a durable timer; returns the workflow clock's advance. */
    @WorkflowMethod
    long sleep(long millis);
  }

  public static final class SleeperImpl implements Sleeper {
    @Override
    public long sleep(long millis) {
      long start = Workflow.currentTimeMillis();
      Workflow.sleep(Duration.ofMillis(millis));
      return Workflow.currentTimeMillis() - start;
    }
  }

  @Test
  void aDurableTimerWithNothingElseInFlightTakesItsWholeDurationInWallTime() throws Exception {
    int port;
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      port = socket.getLocalPort();
    }
    try (LoopbackTestServer server = LoopbackTestServer.start(port)) {
      WorkflowServiceStubs stubs =
          WorkflowServiceStubs.newServiceStubs(
              WorkflowServiceStubsOptions.newBuilder().setTarget(server.target()).build());
      WorkflowClient client = WorkflowClient.newInstance(stubs);
      WorkerFactory factory = WorkerFactory.newInstance(client);
      try {
        factory.newWorker("sleep").registerWorkflowImplementationTypes(SleeperImpl.class);
        factory.start();
        Sleeper sleeper =
            client.newWorkflowStub(
                Sleeper.class, WorkflowOptions.newBuilder().setTaskQueue("sleep").build());
        long started = System.nanoTime();
        long workflowMillis = sleeper.sleep(3_000);
        long wallMillis = (System.nanoTime() - started) / 1_000_000;
        // With time skipping unlocked the server jumps its clock to the timer at once: the
        // workflow saw 3 s pass in a few milliseconds of wall time.
        assertThat(workflowMillis).isGreaterThanOrEqualTo(3_000);
        assertThat(wallMillis).isGreaterThanOrEqualTo(3_000);
      } finally {
        factory.shutdownNow();
        stubs.shutdownNow();
      }
    }
  }
}
