package io.backpressure.eval.real;

import io.grpc.InsecureServerCredentials;
import io.grpc.Server;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.temporal.internal.testservice.GRPCServerHelper;
import io.temporal.internal.testservice.TestServicesStarter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;

/**
 * The Temporal Java SDK's test server (real time, no time skipping) on a port of the loopback
 * interface only. The SDK's {@code TestServer.createPortBoundServer} listens on every interface;
 * this builds the same services ({@code TestServicesStarter}, registered with their health checks
 * by the SDK's own {@code GRPCServerHelper}) on a gRPC server bound to {@code 127.0.0.1}, so no
 * other machine can reach it. Thread-safe; close it once.
 */
public final class LoopbackTestServer implements AutoCloseable {
  private final TestServicesStarter services;
  private final Server server;

  private LoopbackTestServer(TestServicesStarter services, Server server) {
    this.services = services;
    this.server = server;
  }

  /**
   * Starts the test server on {@code 127.0.0.1:port}.
   *
   * @param port in [1, 65535]
   * @throws UncheckedIOException if the port cannot be bound (in use, or not allowed)
   */
  public static LoopbackTestServer start(int port) {
    if (port < 1 || port > 65535) {
      throw new IllegalArgumentException("--port must be in [1, 65535], got " + port);
    }
    // Time skipping locked, as the SDK's own port-bound server has it: unlocked, the server jumps
    // its clock to the next timer whenever it sees nothing in flight, so durable timers fire early
    // and workflow time runs ahead of the workers' clocks.
    TestServicesStarter services = new TestServicesStarter(true, 0);
    NettyServerBuilder builder =
        NettyServerBuilder.forAddress(
            new InetSocketAddress(InetAddress.getLoopbackAddress(), port),
            InsecureServerCredentials.create());
    GRPCServerHelper.registerServicesAndHealthChecks(services.getServices(), builder);
    try {
      return new LoopbackTestServer(services, builder.build().start());
    } catch (IOException e) {
      services.close();
      throw new UncheckedIOException(
          "cannot listen on 127.0.0.1:" + port + ": " + e.getMessage(), e);
    }
  }

  /** {@code 127.0.0.1:PORT}, for {@code --temporal}. */
  public String target() {
    return "127.0.0.1:" + server.getPort();
  }

  /** Blocks until the server shuts down. */
  public void awaitTermination() throws InterruptedException {
    server.awaitTermination();
  }

  @Override
  public void close() {
    server.shutdown();
    try {
      if (!server.awaitTermination(5, TimeUnit.SECONDS)) {
        server.shutdownNow();
      }
    } catch (InterruptedException e) {
      server.shutdownNow();
      Thread.currentThread().interrupt();
    }
    services.close();
  }
}
