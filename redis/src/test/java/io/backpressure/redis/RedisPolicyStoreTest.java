package io.backpressure.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.backpressure.core.Admission;
import io.backpressure.core.Cost;
import io.backpressure.core.Dimension;
import io.backpressure.core.GateLevels;
import io.backpressure.core.Grant;
import io.backpressure.core.InMemoryGate;
import io.backpressure.core.InvalidPolicyException;
import io.backpressure.core.ManualClock;
import io.backpressure.core.Policy;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class RedisPolicyStoreTest {
  private final ManualClock clock = new ManualClock();

  private static Policy policy() {
    return Policy.builder("store/model")
        .dimension(Dimension.REQUESTS, 10, 10)
        .dimension(Dimension.TOKENS, 1_000.5, 900.25)
        .priority("P1", 0.7)
        .priority("P2", 0.3)
        .tenantWeight("acme", 2.5)
        .defaultTenantWeight(0.75)
        .reservation(true, 333)
        .idleTtl(Duration.ofNanos(2_500_000_123L))
        .safeWindow(Duration.ofMillis(1500))
        .shareHorizon(Duration.ofMillis(750))
        .grantTtl(Duration.ofMinutes(3))
        .build();
  }

  @Test
  void leasesInFlightAndExpiredAreReadAsEveryWorkerSharesThem() {
    Policy policy =
        Policy.builder("store/leases")
            .dimension(Dimension.REQUESTS, 100, 100)
            .priority("P1", 1)
            .concurrency(3, Duration.ofSeconds(2))
            .build();
    RedisGate gate = TestRedis.shared().gate(policy, TimeSource.caller(clock));
    RedisPolicyStore store = gate.policyStore();
    assertThat(store.inFlight()).isZero();
    assertThat(store.expiredLeases()).isZero();
    Grant one = ((Admission.Admitted) gate.admit("a", "P1", Cost.requests(1))).grant();
    clock.advance(Duration.ofSeconds(1));
    gate.admit("b", "P1", Cost.requests(1));
    assertThat(store.inFlight()).isEqualTo(2);
    gate.release(one, Cost.requests(1));
    assertThat(store.inFlight()).isEqualTo(1);
    // The second lease passes its expiry; the next admission that checks the limit counts it.
    clock.advance(Duration.ofMillis(2_500));
    assertThat(store.inFlight()).isZero();
    gate.admit("c", "P1", Cost.requests(1));
    assertThat(store.expiredLeases()).isEqualTo(1);
    assertThat(store.inFlight()).isEqualTo(1);
  }

  @Test
  void aStoredPolicyReadsBackEqual_exactly() {
    RedisGate gate = TestRedis.shared().gate(policy(), TimeSource.caller(clock));
    RedisPolicyStore.Stored stored = gate.policyStore().read().orElseThrow();
    assertThat(stored.policy()).isEqualTo(policy());
    assertThat(stored.version()).matches("1-[0-9a-z]+");
    assertThat(gate.policy()).isEqualTo(policy());
  }

  @Test
  void writesAreValidated_andABadValueWritesNothing() {
    RedisGate gate = TestRedis.shared().gate(policy(), TimeSource.caller(clock));
    RedisPolicyStore store = gate.policyStore();
    String before = store.read().orElseThrow().version();

    assertThatThrownBy(() -> store.setCap(Dimension.TOKENS, -5, 100))
        .isInstanceOf(InvalidPolicyException.class)
        .satisfies(
            e ->
                assertThat(((InvalidPolicyException) e).field())
                    .isEqualTo("dimensions.tokens.cap"));
    assertThatThrownBy(() -> store.setPriorityWeight("P9", 1))
        .isInstanceOf(InvalidPolicyException.class)
        .hasMessageContaining("P9");
    assertThatThrownBy(
            () ->
                store.apply(
                    Policy.builder("other/model").requestsPerSecond(1).priority("P1", 1).build()))
        .isInstanceOf(InvalidPolicyException.class)
        .hasMessageContaining("other/model");
    assertThatThrownBy(() -> store.setCap(Dimension.TOKENS, 100, 0))
        .isInstanceOf(InvalidPolicyException.class)
        .satisfies(
            e ->
                assertThat(((InvalidPolicyException) e).field())
                    .isEqualTo("dimensions.tokens.burst"));
    assertThatThrownBy(() -> store.setTenantWeight("acme", Double.NaN))
        .isInstanceOf(InvalidPolicyException.class)
        .hasMessageContaining("tenants.weights.acme");

    assertThat(store.read().orElseThrow().version()).isEqualTo(before);
  }

  @Test
  void hotUpdates_changeOneValueEach_andBumpTheVersion() {
    RedisGate gate = TestRedis.shared().gate(policy(), TimeSource.caller(clock));
    RedisPolicyStore store = gate.policyStore();
    store.setCap(Dimension.REQUESTS, 20, 5);
    store.setPriorityWeight("P2", 0.6);
    RedisPolicyStore.Stored last = store.setTenantWeight("newco", 4);

    Policy expected =
        policy()
            .withDimension(new Dimension(Dimension.REQUESTS, 20, 5))
            .withPriorityWeight("P2", 0.6)
            .withTenantWeight("newco", 4);
    assertThat(last.policy()).isEqualTo(expected);
    assertThat(last.version()).startsWith("4-");
    assertThat(store.policy()).isEqualTo(expected);
  }

  @Test
  void create_writesOnlyWhenTheTargetHasNoPolicy() {
    RedisGate gate = TestRedis.shared().gate(policy(), TimeSource.caller(clock));
    Policy other = policy().withPriorityWeight("P1", 0.1);
    assertThat(gate.policyStore().create(other)).isFalse();
    assertThat(gate.policyStore().policy()).isEqualTo(policy());
  }

  @Test
  void levels_showL1L2AndActiveQueues_likeTheInMemoryGate() {
    Policy policy = policy();
    RedisGate gate = TestRedis.shared().gate(policy, TimeSource.caller(clock));
    InMemoryGate memory = InMemoryGate.create(policy, clock);
    assertThat(gate.policyStore().levels()).isEmpty();
    for (String tenant : new String[] {"a", "b", "acme"}) {
      gate.admit(tenant, "P1", Cost.requests(1).tokens(100));
      memory.admit(tenant, "P1", Cost.requests(1).tokens(100));
    }
    gate.admit("c", "P2", Cost.requests(1).tokens(10));
    memory.admit("c", "P2", Cost.requests(1).tokens(10));

    GateLevels redis = gate.policyStore().levels().orElseThrow();
    GateLevels reference = memory.levels();
    assertThat(redis.activeQueues())
        .containsExactlyEntriesOf(reference.activeQueues())
        .containsEntry("P1", 3)
        .containsEntry("P2", 1);
    assertThat(redis.global()).containsOnlyKeys(Dimension.REQUESTS, Dimension.TOKENS);
    redis
        .global()
        .forEach(
            (dim, level) -> assertThat(level).isCloseTo(reference.global().get(dim), within(1e-9)));
    redis
        .classes()
        .forEach(
            (k, levels) ->
                levels.forEach(
                    (dim, level) ->
                        assertThat(level)
                            .isCloseTo(reference.classes().get(k).get(dim), within(1e-9))));
    redis
        .admittedRates()
        .forEach(
            (k, rates) ->
                rates.forEach(
                    (dim, rate) ->
                        assertThat(rate)
                            .isCloseTo(reference.admittedRates().get(k).get(dim), within(1e-9))));
    assertThat(redis.admittedRates().get("P1").get(Dimension.REQUESTS)).isPositive();
    // Reservation debits 100 + 333 tokens per call from the 900.25 burst.
    assertThat(redis.global().get(Dimension.TOKENS)).isLessThan(900.25 - 433);
  }

  @Test
  void applyWithNewNames_resetsTheState_andIgnoresGrantsOfTheOldLayout() {
    RedisGate gate = TestRedis.shared().gate(policy(), TimeSource.caller(clock));
    Grant grant =
        ((Admission.Admitted) gate.admit("a", "P1", Cost.requests(1).tokens(100))).grant();
    assertThat(gate.policyStore().levels()).isPresent();

    Policy renamed =
        Policy.builder("store/model")
            .dimension(Dimension.REQUESTS, 10, 10)
            .priority("gold", 0.8)
            .priority("silver", 0.2)
            .build();
    gate.policyStore().apply(renamed);
    assertThat(gate.policyStore().levels()).isEmpty();

    assertThat(gate.release(grant, Cost.requests(0))).isFalse();
    assertThat(gate.admit("a", "P1", Cost.requests(1))).isInstanceOf(Admission.Rejected.class);
    for (int i = 0; i < 10; i++) {
      assertThat(gate.admit("t" + i, "gold", Cost.requests(1)))
          .isInstanceOf(Admission.Admitted.class);
    }
    assertThat(gate.admit("t", "gold", Cost.requests(1))).isInstanceOf(Admission.Deferred.class);
    assertThat(gate.policy()).isEqualTo(renamed);
  }
}
