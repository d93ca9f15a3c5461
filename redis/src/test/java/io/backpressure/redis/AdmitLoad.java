package io.backpressure.redis;

import io.backpressure.core.Admission;
import io.backpressure.core.AdmissionRequest;
import io.backpressure.core.Cost;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

/**
 * One worker process of {@link MultiProcessCapIT}: {@code threads} callers admit random calls
 * against one target for {@code seconds}, wait Δ and retry with the booking when deferred, release
 * what they were granted, and finally write one line per admission: the server's decision time
 * (µs), the requests and the tokens debited.
 *
 * <p>Arguments: url keyPrefix target seconds threads outputFile
 */
public final class AdmitLoad {
  private AdmitLoad() {}

  public static void main(String[] args) throws Exception {
    RedisGateConfig config = RedisGateConfig.builder(args[0]).keyPrefix(args[1]).target(args[2])
        .commandTimeout(Duration.ofSeconds(5)).build();
    long until = System.nanoTime() + (long) (Double.parseDouble(args[3]) * 1e9);
    int threads = Integer.parseInt(args[4]);
    Path out = Path.of(args[5]);
    List<String> lines = new ArrayList<>();
    try (RedisGate gate = RedisGate.connect(config)) {
      List<Thread> callers = new ArrayList<>();
      for (int i = 0; i < threads; i++) {
        Thread caller = new Thread(() -> {
          List<String> mine = run(gate, until);
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

  private static List<String> run(RedisGate gate, long until) {
    ThreadLocalRandom random = ThreadLocalRandom.current();
    List<String> admitted = new ArrayList<>();
    AdmissionRequest request = null;
    while (System.nanoTime() < until) {
      if (request == null) {
        Cost cost = Cost.of(1, 50 + random.nextInt(300));
        request = AdmissionRequest.of("tenant-" + random.nextInt(16), "P" + (1 + random.nextInt(3)), cost);
      }
      RedisGate.Decision decision = gate.decide(request).join();
      if (decision.admission() instanceof Admission.Admitted a) {
        Cost debited = a.grant().debited();
        admitted.add(decision.decidedAtMicros() + " " + debited.amount("requests") + " " + debited.amount("tokens"));
        gate.release(a.grant(), debited);
        request = null;
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
