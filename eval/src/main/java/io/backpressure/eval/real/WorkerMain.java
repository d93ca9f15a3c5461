package io.backpressure.eval.real;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/**
 * A worker process of a real run with {@code --workers N}: {@code WorkerMain SPEC.json HOST:PORT
 * NAMESPACE OUT.json tls|plain}. Connects to the Temporal service, starts one {@link RealWorker}
 * from the spec and prints {@value #READY} on standard output; then reads the run's origin
 * (nanoseconds since the epoch) from standard input, waits for the run's end time (nanoseconds
 * since the origin) there too, closes its ledger at it and writes a {@link Report} to {@code
 * OUT.json}. The origin is set only once every process is up and polling, however slowly the JVMs
 * start. Exit 0 on success, 1 otherwise.
 */
public final class WorkerMain {
  /** What a worker process prints once it is connected and waits for the run's origin. */
  static final String READY = "ready";

  /** The last argument: connect over TLS, or not. */
  static final String TLS = "tls";

  static final String PLAIN = "plain";

  private WorkerMain() {}

  /**
   * What a worker process hands back.
   *
   * @param snapshot its ledger
   * @param cpuNanos its process CPU time
   */
  record Report(Ledger.Snapshot snapshot, long cpuNanos) {}

  public static void main(String[] args) throws Exception {
    if (args.length != 5) {
      System.err.println("usage: WorkerMain SPEC.json HOST:PORT NAMESPACE OUT.json tls|plain");
      System.exit(2);
    }
    RealWorker.Spec spec =
        WorkerGroup.JSON.readValue(Path.of(args[0]).toFile(), RealWorker.Spec.class);
    var stubs = TemporalStack.connectStubs(args[1], TLS.equals(args[4]));
    BufferedReader in =
        new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    Ledger ledger = new Ledger(0);
    int exit = 1;
    try (RealWorker worker =
        RealWorker.start(TemporalStack.client(stubs, args[2]), spec, ledger, null)) {
      System.out.println(READY);
      System.out.flush();
      String origin = in.readLine();
      if (origin != null) {
        ledger.originAt(Long.parseLong(origin.strip()));
      }
      String end = origin == null ? null : in.readLine();
      if (end != null) {
        ledger.close(Long.parseLong(end.strip()));
        WorkerGroup.JSON.writeValue(
            Path.of(args[3]).toFile(), new Report(ledger.snapshot(), RealRunner.processCpuNanos()));
        exit = 0;
      }
    } catch (RuntimeException e) {
      e.printStackTrace();
    } finally {
      stubs.shutdownNow();
    }
    System.exit(exit);
  }
}
