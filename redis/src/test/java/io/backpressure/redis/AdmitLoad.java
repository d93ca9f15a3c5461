package io.backpressure.redis;

import io.backpressure.core.Admission;
import io.backpressure.core.AdmissionRequest;
import io.backpressure.core.Cost;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A worker process of the multi-process tests: {@code threads} callers admit calls against one
 * target for {@code seconds} from the process's first admission, wait Δ and retry with the booking
 * when deferred, release what they were granted, and finally write one line per admission: the
 * server's decision time (µs), the requests and the tokens debited. It never reports a provider
 * answer. The run is counted from the first admission, not from the start of {@code main}, so that
 * a process whose JVM and connection are slow to start on a loaded machine still admits for the
 * whole run; it gives up if no call is admitted within {@link #FIRST_ADMISSION_WITHIN}. At its
 * first admission it creates {@link #startedMarker the marker} of the output file, so that a test
 * can wait for the load to run instead of guessing how long a JVM takes to start.
 *
 * <p>Arguments: url keyPrefix target seconds threads outputFile [calls], where calls is {@code
 * mixed} (the default, {@link MultiProcessCapIT}: random calls of 16 tenants in three classes),
 * {@code steady} ({@link FeedbackTwoProcessIT}: one request at a time of tenant {@code child} in
 * {@code P1}) or {@code leases:MIN:MAX} ({@link LeasesMultiProcessIT}: calls of 16 tenants in
 * {@code P1}, each held for a random MIN to MAX milliseconds before its release, so that it holds
 * its concurrency lease that long).
 */
public final class AdmitLoad {
  /** How long a process may take, from the start of {@code main}, to admit its first call. */
  static final Duration FIRST_ADMISSION_WITHIN = Duration.ofMinutes(1);

  private AdmitLoad() {}

  /** The file the process creates at its first admission, beside {@code outputFile}. */
  static Path startedMarker(Path outputFile) {
    return outputFile.resolveSibling(outputFile.getFileName() + ".started");
  }

  public static void main(String[] args) throws Exception {
    RedisGateConfig config =
        RedisGateConfig.builder(args[0])
            .keyPrefix(args[1])
            .target(args[2])
            .commandTimeout(Duration.ofSeconds(5))
            // The handshake, not what is tested, can take longer than the default 2 s on a
            // loaded machine ("Connection initialization timed out after 2 second(s)").
            .connectTimeout(Duration.ofSeconds(30))
            .build();
    long runNanos = (long) (Double.parseDouble(args[3]) * 1e9);
    // Until the first admission: the limit on reaching it; from then on, the end of the run.
    AtomicLong until = new AtomicLong(System.nanoTime() + FIRST_ADMISSION_WITHIN.toNanos());
    int threads = Integer.parseInt(args[4]);
    Path out = Path.of(args[5]);
    boolean steady = args.length > 6 && args[6].equals("steady");
    long[] hold = {0, 0};
    if (args.length > 6 && args[6].startsWith("leases:")) {
      String[] range = args[6].split(":");
      hold[0] = Long.parseLong(range[1]);
      hold[1] = Long.parseLong(range[2]);
    }
    List<String> lines = new ArrayList<>();
    AtomicBoolean started = new AtomicBoolean();
    try (RedisGate gate = RedisGate.connect(config)) {
      List<Thread> callers = new ArrayList<>();
      for (int i = 0; i < threads; i++) {
        Thread caller =
            new Thread(
                () -> {
                  List<String> mine = run(gate, until, runNanos, steady, hold, out, started);
                  synchronized (lines) {
                    lines.addAll(mine);
                  }
                });
        caller.start();
        callers.add(caller);
      }
      for (Thread caller : callers) {
        caller.join();
      }
    }
    Files.write(out, lines);
  }

  private static List<String> run(
      RedisGate gate,
      AtomicLong until,
      long runNanos,
      boolean steady,
      long[] hold,
      Path out,
      AtomicBoolean started) {
    ThreadLocalRandom random = ThreadLocalRandom.current();
    List<String> admitted = new ArrayList<>();
    AdmissionRequest request = null;
    while (System.nanoTime() < until.get()) {
      if (request == null) {
        request =
            steady
                ? AdmissionRequest.of("child", "P1", Cost.requests(1))
                : hold[1] > 0
                    ? AdmissionRequest.of("tenant-" + random.nextInt(16), "P1", Cost.requests(1))
                    : AdmissionRequest.of(
                        "tenant-" + random.nextInt(16),
                        "P" + (1 + random.nextInt(3)),
                        Cost.requests(1).tokens(50 + random.nextInt(300)));
      }
      RedisGate.Decision decision = gate.decide(request).join();
      if (decision.admission() instanceof Admission.Admitted a) {
        Cost debited = a.grant().debited();
        admitted.add(
            decision.decidedAtMicros()
                + " "
                + debited.amount("requests")
                + " "
                + debited.amount("tokens"));
        if (hold[1] > 0) {
          try {
            Thread.sleep(random.nextLong(hold[0], hold[1] + 1));
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return admitted;
          }
        }
        gate.release(a.grant(), debited);
        request = null;
        if (started.compareAndSet(false, true)) {
          until.set(System.nanoTime() + runNanos);
          try {
            Files.createFile(startedMarker(out));
          } catch (IOException e) {
            throw new UncheckedIOException(e);
          }
        }
      } else if (decision.admission() instanceof Admission.Deferred d) {
        try {
          Thread.sleep(Math.max(1, d.retryAfter().toMillis()));
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return admitted;
        }
        request = request.withBooking(d.booking());
      } else {
        throw new IllegalStateException("unexpected " + decision.admission());
      }
    }
    return admitted;
  }
}
