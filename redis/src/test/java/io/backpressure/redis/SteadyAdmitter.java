package io.backpressure.redis;

import io.backpressure.core.Admission;
import io.backpressure.core.AdmissionRequest;
import io.backpressure.core.Cost;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.LockSupport;

/**
 * The other process of {@link FeedbackTwoProcessIT}: {@code threads} callers of one tenant in class
 * {@code P1} admit one request at a time for {@code seconds}, wait Δ and retry with the booking
 * when deferred, release what they were granted, and finally write the server's decision time (µs)
 * of every admission, one a line. It never reports a provider answer.
 *
 * <p>Arguments: url keyPrefix target seconds threads outputFile
 */
public final class SteadyAdmitter {
  private SteadyAdmitter() {}

  public static void main(String[] args) throws Exception {
    RedisGateConfig config = RedisGateConfig.builder(args[0]).keyPrefix(args[1]).target(args[2])
        .commandTimeout(Duration.ofSeconds(5)).build();
    long until = System.nanoTime() + (long) (Double.parseDouble(args[3]) * 1e9);
    int threads = Integer.parseInt(args[4]);
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
    Files.write(Path.of(args[5]), lines);
  }

  private static List<String> run(RedisGate gate, long until) {
    List<String> admitted = new ArrayList<>();
    AdmissionRequest request = AdmissionRequest.of("child", "P1", Cost.oneRequest());
    while (System.nanoTime() < until) {
      RedisGate.Decision decision = gate.decide(request).join();
      if (decision.admission() instanceof Admission.Admitted a) {
        admitted.add(Long.toString(decision.decidedAtMicros()));
        gate.release(a.grant(), Cost.oneRequest());
        request = AdmissionRequest.of("child", "P1", Cost.oneRequest());
      } else if (decision.admission() instanceof Admission.Deferred d) {
        LockSupport.parkNanos(d.retryAfter().toNanos());
        request = request.withBooking(d.booking());
      } else {
        throw new IllegalStateException("unexpected " + decision.admission());
      }
    }
    return admitted;
  }
}
