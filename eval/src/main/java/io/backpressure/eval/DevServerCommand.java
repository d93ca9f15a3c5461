package io.backpressure.eval;

import io.backpressure.eval.real.LoopbackTestServer;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code ./backpressure dev-server [--port 7233]}: the Temporal Java SDK's test server as a process
 * of its own, on {@code 127.0.0.1} only ({@link LoopbackTestServer}), in real time, namespace
 * {@code default}. It is the closest to a real cluster available without one: {@code eval --mode
 * real --temporal 127.0.0.1:PORT} and worker processes connect to it over gRPC as they would to a
 * cluster. State lives in memory and ends with the process; stop it with Ctrl-C or SIGTERM.
 *
 * <p>Prints {@code Temporal test server listening on 127.0.0.1:PORT} once it accepts connections.
 * Exit codes: 0 after a shutdown, 2 on a bad or unavailable port.
 */
@Command(
    name = "dev-server",
    mixinStandardHelpOptions = true,
    description =
        "Run the Temporal Java test server on 127.0.0.1 as its own process (for eval --temporal"
            + " and worker processes); in memory, real time, namespace 'default'.")
public final class DevServerCommand implements Callable<Integer> {

  @Spec CommandSpec spec;

  @Option(
      names = "--port",
      defaultValue = "7233",
      paramLabel = "PORT",
      description = "Loopback port to listen on (default: ${DEFAULT-VALUE}).")
  int port;

  /** Picocli's constructor. */
  public DevServerCommand() {}

  /** Runs the command in a process of its own (tests start it this way). */
  public static void main(String[] args) {
    System.exit(new CommandLine(new DevServerCommand()).execute(args));
  }

  @Override
  public Integer call() throws InterruptedException {
    PrintWriter err = spec.commandLine().getErr();
    PrintWriter out = spec.commandLine().getOut();
    LoopbackTestServer server;
    try {
      server = LoopbackTestServer.start(port);
    } catch (IllegalArgumentException | UncheckedIOException e) {
      err.println("dev-server: " + e.getMessage());
      err.flush();
      return 2;
    }
    Runtime.getRuntime().addShutdownHook(new Thread(server::close, "dev-server-shutdown"));
    out.println(
        "Temporal test server listening on "
            + server.target()
            + " (namespace default; Ctrl-C stops it)");
    out.flush();
    server.awaitTermination();
    return 0;
  }
}
