package io.backpressure.eval;

import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowClientOptions;
import io.temporal.serviceclient.WorkflowServiceStubs;
import io.temporal.serviceclient.WorkflowServiceStubsOptions;
import io.temporal.testing.TestEnvironmentOptions;
import io.temporal.testing.TestWorkflowEnvironment;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;

/**
 * The Temporal service a real run talks to: the Java SDK's test server in this process (in real
 * time, no time skipping), the test server bound to a loopback port (so that worker processes can
 * reach it), or an external cluster. One per evaluation; every run uses its own task queue on it.
 */
final class TemporalStack implements AutoCloseable {
  private final TestWorkflowEnvironment env;
  private final LoopbackTestServer portBound;
  private final WorkflowServiceStubs stubs;
  private final WorkflowClient client;
  private final String target;
  private final String namespace;

  private TemporalStack(TestWorkflowEnvironment env, LoopbackTestServer portBound,
      WorkflowServiceStubs stubs, WorkflowClient client, String target, String namespace) {
    this.env = env;
    this.portBound = portBound;
    this.stubs = stubs;
    this.client = client;
    this.target = target;
    this.namespace = namespace;
  }

  /** The test server inside this process. */
  static TemporalStack inProcess() {
    TestWorkflowEnvironment env = TestWorkflowEnvironment.newInstance(
        TestEnvironmentOptions.newBuilder().setUseTimeskipping(false).build());
    return new TemporalStack(env, null, null, env.getWorkflowClient(), null, "default");
  }

  /** The test server in this process, bound to a free port of the loopback interface for other processes. */
  static TemporalStack portBound() {
    int port;
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      port = socket.getLocalPort();
    } catch (IOException e) {
      throw new IllegalStateException("no free port for the Temporal test server", e);
    }
    LoopbackTestServer server = LoopbackTestServer.start(port);
    String target = server.target();
    WorkflowServiceStubs stubs = connectStubs(target);
    return new TemporalStack(null, server, stubs, client(stubs, "default"), target, "default");
  }

  /** An external cluster at {@code hostPort}. */
  static TemporalStack external(String hostPort, String namespace) {
    WorkflowServiceStubs stubs = connectStubs(hostPort);
    return new TemporalStack(null, null, stubs, client(stubs, namespace), hostPort, namespace);
  }

  /** How long a connection to the Temporal service may take before the run gives up. */
  static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(30);

  /**
   * Service stubs connected to {@code hostPort}: waits until the service answers its health check
   * (at most {@link #CONNECT_TIMEOUT}), so a slow start is waited for and an unreachable service
   * is reported as such.
   *
   * @throws IllegalStateException naming the target when it does not answer in time
   */
  static WorkflowServiceStubs connectStubs(String hostPort) {
    try {
      return WorkflowServiceStubs.newConnectedServiceStubs(
          WorkflowServiceStubsOptions.newBuilder().setTarget(hostPort).build(), CONNECT_TIMEOUT);
    } catch (RuntimeException e) {
      throw new IllegalStateException("cannot reach Temporal at " + hostPort + " within "
          + CONNECT_TIMEOUT.toSeconds() + " s: " + e.getMessage(), e);
    }
  }

  /** A client of {@code namespace} over {@code stubs}. */
  static WorkflowClient client(WorkflowServiceStubs stubs, String namespace) {
    return WorkflowClient.newInstance(stubs, WorkflowClientOptions.newBuilder().setNamespace(namespace).build());
  }

  WorkflowClient client() {
    return client;
  }

  /** {@code HOST:PORT} other processes can reach, or null for the in-process server. */
  String target() {
    return target;
  }

  /** Whether this is the Java test server (whose task queue needs FIFO tickets, see {@code CallLoopImpl}). */
  boolean isTestServer() {
    return env != null || portBound != null;
  }

  String namespace() {
    return namespace;
  }

  /** What the run is measured on, for the report. */
  String describe() {
    if (env != null) {
      return "Temporal Java test server, in process, real time";
    }
    if (portBound != null) {
      return "Temporal Java test server on " + target + " (loopback)";
    }
    return "external Temporal at " + target + ", namespace " + namespace;
  }

  @Override
  public void close() {
    if (env != null) {
      env.close();
    }
    if (stubs != null) {
      stubs.shutdownNow();
    }
    if (portBound != null) {
      portBound.close();
    }
  }
}
