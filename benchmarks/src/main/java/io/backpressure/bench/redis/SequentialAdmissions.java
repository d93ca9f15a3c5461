package io.backpressure.bench.redis;

import io.backpressure.core.Admission;
import io.backpressure.core.AdmissionRequest;
import io.backpressure.core.Cost;
import io.backpressure.core.FailOpenGate;
import io.backpressure.core.Gate;
import io.backpressure.core.Policy;
import io.backpressure.redis.RedisGateConfig;
import io.backpressure.redis.RedisGates;
import java.time.Duration;

/**
 * A fixed number of sequential admissions (and, with {@code release}, the release of each) on a
 * fresh target whose caps never bind, the calls of {@link RedisAdmissionLoad}: a workload for a
 * server under an instruction counter, which unlike a clock does not depend on the machine's load.
 * Run it twice against a server started under {@code valgrind --tool=callgrind}, with two numbers
 * of calls; the difference of the two totals over the difference of the calls is the server's
 * instructions per call, without its start, the library's load or the warm-up (see
 * benchmarks/README.md).
 *
 * <p>Usage: {@code SequentialAdmissions URL TENANTS CALLS [release]}.
 */
public final class SequentialAdmissions {
  private SequentialAdmissions() {}

  public static void main(String[] args) {
    if (args.length < 3) {
      System.err.println("usage: SequentialAdmissions URL TENANTS CALLS [release]");
      System.exit(2);
    }
    int tenants = Integer.parseInt(args[1]);
    int calls = Integer.parseInt(args[2]);
    boolean release = args.length > 3 && args[3].equals("release");
    RedisGateConfig.Builder options =
        RedisGateConfig.builder(args[0])
            .commandTimeout(Duration.ofSeconds(60))
            // Measures admissions alone: no LOCAL heartbeat adding commands.
            .whenUnavailable(FailOpenGate.Mode.OPEN);
    try (RedisGates gates = RedisGates.connect(options)) {
      Gate gate =
          gates.gate(
              Policy.builder("bench/sequential-" + System.nanoTime())
                  .requestsPerSecond(1e9)
                  .tokensPerSecond(1e12)
                  .priority("P1", 0.5)
                  .priority("P2", 0.3)
                  .priority("P3", 0.2)
                  .idleTtl(Duration.ofMinutes(10))
                  .grantTtl(Duration.ofMinutes(1))
                  .build());
      // Every queue active first, as in RedisAdmissionLoad.
      for (int i = 0; i < tenants; i++) {
        call(gate, i, tenants, release);
      }
      for (int i = 0; i < calls; i++) {
        call(gate, i, tenants, release);
      }
    }
  }

  private static void call(Gate gate, int i, int tenants, boolean release) {
    Admission admission =
        gate.admit(
            AdmissionRequest.of(
                "tenant-" + i % tenants,
                "P" + (1 + i % 3),
                Cost.requests(1).tokens(100 + i % 400)));
    if (release && admission instanceof Admission.Admitted admitted) {
      gate.release(admitted.grant(), Cost.requests(1).tokens(150));
    }
  }
}
