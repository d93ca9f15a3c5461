package io.backpressure.examples;

import io.backpressure.core.Admission;
import io.backpressure.core.AdmissionRequest;
import io.backpressure.core.Cost;
import io.backpressure.core.Policy;
import io.backpressure.redis.RedisGateConfig;
import io.backpressure.redis.ResilientRedisGate;
import java.time.Duration;

/** Many processes, state in Redis: every worker of the target shares one set of buckets. */
public final class RedisQuickstart {

  public static void main(String[] args) {
    String url = args.length > 0 ? args[0] : "redis://127.0.0.1:6379";
    Policy policy =
        Policy.builder("openai/gpt-4o")
            .requestsPerMinute(3_600)
            .tokensPerMinute(720_000)
            .priority("P1", 0.5)
            .priority("P2", 0.3)
            .priority("P3", 0.2)
            .build(); // stored if the target has no policy in Redis yet
    // Connects in the background; while Redis is unreachable, this worker's share of the caps
    // decides (LOCAL, the default).
    // README redis: begin
    try (ResilientRedisGate gate =
        ResilientRedisGate.open(RedisGateConfig.builder(url).policy(policy).build())) {
      // README redis: end
      // Optional: start gated if Redis is there. A first connection starts the client and loads
      // the scripts, seconds on a loaded machine: wait 10 s, not 2.
      gate.awaitConnected(Duration.ofSeconds(10));
      Admission admission =
          gate.admit(AdmissionRequest.of("acme", "P1", Cost.requests(1).tokens(420)));
      if (admission instanceof Admission.Admitted admitted) {
        int tokensUsed = 512; // what the provider's reply reports
        gate.release(admitted.grant(), Cost.requests(1).tokens(tokensUsed));
        System.out.println(admitted.grant().failedOpen() ? "admitted ungated" : "admitted");
      } else {
        System.out.println(admission); // Deferred, Expired or Rejected: as in the in-memory example
      }
    }
  }
}
