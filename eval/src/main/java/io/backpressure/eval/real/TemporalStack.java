package io.backpressure.eval.real;

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
public final class TemporalStack implements AutoCloseable {
  private final TestWorkflowEnvironment env;
  private final LoopbackTestServer portBound;
  private final WorkflowServiceStubs stubs;
  private final WorkflowClient client;
  private final String target;
  private final String namespace;
  private final boolean tls;

  private TemporalStack(
      TestWorkflowEnvironment env,
      LoopbackTestServer portBound,
      WorkflowServiceStubs stubs,
      WorkflowClient client,
      String target,
      String namespace,
      boolean tls) {
    this.tls = tls;
    this.env = env;
    this.portBound = portBound;
    this.stubs = stubs;
    this.client = client;
    this.target = target;
    this.namespace = namespace;
  }

  /** The test server inside this process. */
  static TemporalStack inProcess() {
    TestWorkflowEnvironment env =
        TestWorkflowEnvironment.newInstance(
            TestEnvironmentOptions.newBuilder().setUseTimeskipping(false).build());
    return new TemporalStack(env, null, null, env.getWorkflowClient(), null, "default", false);
  }

  /**
   * The test server in this process, bound to a free port of the loopback interface for other
   * processes.
   */
  static TemporalStack portBound() {
    int port;
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      port = socket.getLocalPort();
    } catch (IOException e) {
      throw new IllegalStateException("no free port for the Temporal test server", e);
    }
    LoopbackTestServer server = LoopbackTestServer.start(port);
    String target = server.target();
    WorkflowServiceStubs stubs = connectStubs(target, false);
    return new TemporalStack(
        null, server, stubs, client(stubs, "default"), target, "default", false);
  }

  /**
   * An external cluster at {@code hostPort}: plain gRPC, or TLS with the JVM's trusted
   * certificates; with an API key when {@value #API_KEY_ENV} is set (Temporal Cloud).
   */
  static TemporalStack external(String hostPort, String namespace, boolean tls) {
    WorkflowServiceStubs stubs = connectStubs(hostPort, tls);
    return new TemporalStack(null, null, stubs, client(stubs, namespace), hostPort, namespace, tls);
  }

  /**
   * The environment variable an API key for the Temporal service is read from (never from the
   * command line, so it appears in no report, process list or log); worker processes inherit it.
   */
  public static final String API_KEY_ENV = "TEMPORAL_API_KEY";

  /** How long a connection to the Temporal service may take before the run gives up. */
  static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(30);

  /**
   * Service stubs connected to {@code hostPort} (over TLS when {@code tls}, with the API key of
   * {@value #API_KEY_ENV} when it is set): waits until the service answers its health check (at
   * most {@link #CONNECT_TIMEOUT}), so a slow start is waited for and an unreachable service is
   * reported as such.
   *
   * @throws IllegalStateException naming the target when it does not answer in time
   */
  static WorkflowServiceStubs connectStubs(String hostPort, boolean tls) {
    WorkflowServiceStubsOptions.Builder options =
        WorkflowServiceStubsOptions.newBuilder().setTarget(hostPort).setEnableHttps(tls);
    String apiKey = System.getenv(API_KEY_ENV);
    if (apiKey != null && !apiKey.isBlank()) {
      options.addApiKey(() -> apiKey);
    }
    try {
      return WorkflowServiceStubs.newConnectedServiceStubs(options.build(), CONNECT_TIMEOUT);
    } catch (RuntimeException e) {
      throw new IllegalStateException(
          "cannot reach Temporal at "
              + hostPort
              + " within "
              + CONNECT_TIMEOUT.toSeconds()
              + " s: "
              + e.getMessage(),
          e);
    }
  }

  /** A client of {@code namespace} over {@code stubs}. */
  static WorkflowClient client(WorkflowServiceStubs stubs, String namespace) {
    return WorkflowClient.newInstance(
        stubs, WorkflowClientOptions.newBuilder().setNamespace(namespace).build());
  }

  WorkflowClient client() {
    return client;
  }

  /** {@code HOST:PORT} other processes can reach, or null for the in-process server. */
  String target() {
    return target;
  }

  /**
   * Whether this is the Java test server (whose task queue needs FIFO tickets, see {@code
   * CallLoopImpl}).
   */
  boolean isTestServer() {
    return env != null || portBound != null;
  }

  String namespace() {
    return namespace;
  }

  /** Whether the connection uses TLS. */
  boolean tls() {
    return tls;
  }

  /** What the run is measured on, for the report. */
  String describe() {
    if (env != null) {
      return "Temporal Java test server, in process, real time";
    }
    if (portBound != null) {
      return "Temporal Java test server on " + target + " (loopback)";
    }
    String key = System.getenv(API_KEY_ENV);
    return "external Temporal at "
        + target
        + ", namespace "
        + namespace
        + (tls ? ", TLS" : "")
        + (key != null && !key.isBlank() ? ", API key from " + API_KEY_ENV : "");
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
