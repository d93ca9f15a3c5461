package io.backpressure.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.backpressure.core.Admission;
import io.backpressure.core.Cost;
import io.backpressure.core.Dimension;
import io.backpressure.core.Policy;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * A worker that dies holding concurrency leases, on the server's clock: its leases expire by
 * themselves after their TTL, out of the target's and its class's counts, and are counted; another
 * worker's calls are admitted within the TTL plus one poll. Takes about 1.3 s.
 */
class LeaseExpiryTest {
  private static final Cost ONE = Cost.requests(1);

  @Test
  void aDeadWorkersLeasesExpireWithinTheirTtlPlusOnePoll_andAreCounted() throws Exception {
    Policy policy =
        Policy.builder("lease/model")
            .dimension(Dimension.REQUESTS, 1_000, 1_000)
            .priority("P1", 1)
            .concurrency(3, Duration.ofSeconds(1))
            .classConcurrency("P1", 2)
            .build();
    RedisGateConfig config = TestRedis.shared().config().policy(policy).build();
    RedisGate survivor = RedisGate.over(TestRedis.shared().connection(), false, config);
    long start;
    try (RedisGate dying = RedisGate.connect(config)) {
      // Connected and its scripts loaded before the clock starts: a loaded machine takes seconds.
      Admission warm = dying.admit("w", "P1", ONE);
      dying.release(((Admission.Admitted) warm).grant(), ONE);
      start = System.nanoTime();
      assertThat(dying.admit("a", "P1", ONE)).isInstanceOf(Admission.Admitted.class);
      assertThat(dying.admit("b", "P1", ONE)).isInstanceOf(Admission.Admitted.class);
    }
    // The class holds two leases: both the dead worker's must expire before c and d are in.
    for (String tenant : new String[] {"c", "d"}) {
      Admission answer = survivor.admit(tenant, "P1", ONE);
      while (answer instanceof Admission.Deferred deferred) {
        assertThat(deferred.retryAfter()).isLessThanOrEqualTo(Duration.ofMillis(250));
        Thread.sleep(deferred.retryAfter().toMillis());
        answer = survivor.admit(tenant, "P1", ONE);
      }
      assertThat(answer).isInstanceOf(Admission.Admitted.class);
    }
    Duration admittedAfter = Duration.ofNanos(System.nanoTime() - start);
    assertThat(admittedAfter)
        .as("not before the leases' TTL; within it plus one poll and a loaded machine's slack")
        .isBetween(Duration.ofMillis(950), Duration.ofMillis(1_000 + 250 + 1_500));
    assertThat(survivor.policyStore().expiredLeases()).isEqualTo(2);
    assertThat(survivor.policyStore().inFlight()).isEqualTo(2);
    assertThat(survivor.admit("e", "P1", ONE))
        .as("the class holds two leases again")
        .isInstanceOf(Admission.Deferred.class);
  }
}
