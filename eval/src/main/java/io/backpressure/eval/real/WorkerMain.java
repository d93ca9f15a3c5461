package io.backpressure.eval.real;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/**
 * A worker process of a real run with {@code --workers N}: {@code WorkerMain SPEC.json HOST:PORT
 * NAMESPACE OUT.json tls|plain [standby]}. Connects to the Temporal service, starts one {@link
 * RealWorker} from the spec and prints {@value #READY} on standard output; then reads the run's
 * origin (nanoseconds since the epoch) from standard input, waits for the run's end time
 * (nanoseconds since the origin) there too, closes its ledger at it and writes a {@link Report} to
 * {@code OUT.json}. The origin is set only once every process is up and polling, however slowly the
 * JVMs start. Exit 0 on success, 1 otherwise.
 *
 * <p>A {@code standby} process is the replacement for a worker the harness will kill: it starts a
 * worker on a task queue and key prefix of its own ({@link RealWorker.Spec#warmUp}), so that the
 * JVM has loaded, compiled and connected everything a worker uses, closes it, and prints {@value
 * #READY}; after the origin it waits for {@value #POLL}, then starts the run's worker and prints
 * {@value #POLLING}. A replacement so takes milliseconds rather than a JVM's start-up (seconds on a
 * loaded machine). A standby never told to poll reports an empty ledger.
 */
public final class WorkerMain {
  /** What a worker process prints once it is connected and waits for the run's origin. */
  static final String READY = "ready";

  /** The last argument: connect over TLS, or not. */
  static final String TLS = "tls";

  static final String PLAIN = "plain";

  /** The optional last argument: start as a standby (see the class comment). */
  static final String STANDBY = "standby";

  /** What a standby reads before it starts the run's worker. */
  static final String POLL = "poll";

  /** What a standby prints once the run's worker polls. */
  static final String POLLING = "polling";

  private WorkerMain() {}

  /**
   * What a worker process hands back.
   *
   * @param snapshot its ledger
   * @param cpuNanos its process CPU time
   */
  record Report(Ledger.Snapshot snapshot, long cpuNanos) {}

  // Standard error is this process's log, which the harness appends to the workers' log file.
  @SuppressWarnings("CatchAndPrintStackTrace")
  public static void main(String[] args) throws Exception {
    if (args.length != 5 && !(args.length == 6 && STANDBY.equals(args[5]))) {
      System.err.println(
          "usage: WorkerMain SPEC.json HOST:PORT NAMESPACE OUT.json tls|plain [standby]");
      System.exit(2);
    }
    boolean standby = args.length == 6;
    RealWorker.Spec spec =
        WorkerGroup.JSON.readValue(Path.of(args[0]).toFile(), RealWorker.Spec.class);
    var stubs = TemporalStack.connectStubs(args[1], TLS.equals(args[4]));
    BufferedReader in =
        new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    Ledger ledger = new Ledger(0);
    int exit = 1;
    var client = TemporalStack.client(stubs, args[2]);
    RealWorker worker = null;
    try {
      if (standby) {
        RealWorker.start(client, spec.warmUp(), new Ledger(0), null).close();
      } else {
        worker = RealWorker.start(client, spec, ledger, null);
      }
      System.out.println(READY);
      System.out.flush();
      String origin = in.readLine();
      if (origin != null) {
        ledger.originAt(Long.parseLong(origin.strip()));
      }
      String end = origin == null ? null : in.readLine();
      if (standby && POLL.equals(end)) {
        worker = RealWorker.start(client, spec, ledger, null);
        System.out.println(POLLING);
        System.out.flush();
        end = in.readLine();
      }
      if (end != null) {
        ledger.close(Long.parseLong(end.strip()));
        WorkerGroup.JSON.writeValue(
            Path.of(args[3]).toFile(), new Report(ledger.snapshot(), RealRunner.processCpuNanos()));
        exit = 0;
      }
    } catch (RuntimeException e) {
      e.printStackTrace();
    } finally {
      if (worker != null) {
        worker.close();
      }
      stubs.shutdownNow();
    }
    System.exit(exit);
  }
}
