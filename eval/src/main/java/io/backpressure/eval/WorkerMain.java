package io.backpressure.eval;

import io.backpressure.eval.real.Ledger;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/**
 * A worker process of a real run with {@code --workers N}: {@code WorkerMain SPEC.json HOST:PORT
 * NAMESPACE OUT.json}. Starts one {@link RealWorker} from the spec against the Temporal service,
 * then waits for the run's end time (nanoseconds since the run's origin) on standard input, closes
 * its ledger there and writes a {@link Report} to {@code OUT.json}. Exit 0 on success, 1 otherwise.
 */
public final class WorkerMain {
  private WorkerMain() {}

  /**
   * What a worker process hands back.
   *
   * @param snapshot its ledger
   * @param cpuNanos its process CPU time
   */
  record Report(Ledger.Snapshot snapshot, long cpuNanos) {}

  public static void main(String[] args) throws Exception {
    if (args.length != 4) {
      System.err.println("usage: WorkerMain SPEC.json HOST:PORT NAMESPACE OUT.json");
      System.exit(2);
    }
    RealWorker.Spec spec = WorkerGroup.JSON.readValue(Path.of(args[0]).toFile(), RealWorker.Spec.class);
    Ledger ledger = new Ledger(spec.originEpochNanos());
    var stubs = TemporalStack.connectStubs(args[1]);
    int exit = 0;
    try (RealWorker worker = RealWorker.start(TemporalStack.client(stubs, args[2]), spec, ledger, null)) {
      BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
      String line = in.readLine();
      if (line == null) {
        exit = 1;
      } else {
        ledger.close(Long.parseLong(line.strip()));
        WorkerGroup.JSON.writeValue(Path.of(args[3]).toFile(), new Report(ledger.snapshot(), RealRunner.processCpuNanos()));
      }
    } catch (RuntimeException e) {
      e.printStackTrace();
      exit = 1;
    } finally {
      stubs.shutdownNow();
    }
    System.exit(exit);
  }
}
