package io.backpressure.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.backpressure.core.Admission;
import io.backpressure.core.AdmissionRequest;
import io.backpressure.core.Cost;
import io.backpressure.core.Dimension;
import io.backpressure.core.GateLevels;
import io.backpressure.core.Grant;
import io.backpressure.core.InMemoryGate;
import io.backpressure.core.ManualClock;
import io.backpressure.core.Policy;
import io.backpressure.core.QueueState;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The policy store reads a target whose gates decide with the rebuilt rule ({@link
 * RedisGateConfig#fairQueuing()}) by that rule's layout: after every step of a random trace its
 * levels and the queue the step touched equal those of the in-memory gate deciding with the same
 * rule; and a target's state is never read by the other rule's layout, not even where both layouts
 * have the same size (two dimensions and one class).
 */
class FairRuleLevelsTest {
  private static final int STEPS = 400;

  @ParameterizedTest(name = "seed {0}: {1} dimensions, {2} classes")
  @CsvSource({"21, 2, 1", "22, 1, 3", "23, 2, 3"})
  void levelsAndQueues_underTheRebuiltRule_likeTheInMemoryGate(long seed, int dims, int classes) {
    Random random = new Random(seed);
    Policy policy = DifferentialTest.randomPolicy(random, false, dims, classes, false, false);
    ManualClock clock = new ManualClock(1_000_000_000L * random.nextInt(1000));
    TwinGates twins = TwinGates.fair(policy, clock);
    InMemoryGate memory = twins.memory();
    RedisGate redis = twins.redis();
    RedisPolicyStore store = redis.policyStore();
    assertThat(store.fairQueuing()).isTrue();
    assertThat(store.levels()).isEmpty();

    List<AdmissionRequest[]> deferred = new ArrayList<>();
    List<Grant[]> grants = new ArrayList<>();
    int admitted = 0;
    int deferrals = 0;
    int queuesCompared = 0;
    for (int step = 0; step < STEPS; step++) {
      clock.advance(DifferentialTest.randomGap(random));
      int op = random.nextInt(100);
      AdmissionRequest touched;
      if (op < 20 && !grants.isEmpty()) {
        Grant[] pair = grants.remove(random.nextInt(grants.size()));
        twins.release(step, pair, DifferentialTest.randomActual(random, pair[0].debited()));
        touched = AdmissionRequest.of(pair[0].tenant(), pair[0].priority(), Cost.none());
      } else {
        AdmissionRequest[] retry =
            op < 45 && !deferred.isEmpty()
                ? deferred.remove(random.nextInt(deferred.size()))
                : null;
        AdmissionRequest request =
            retry != null ? retry[0] : DifferentialTest.randomRequest(random, policy);
        Admission a = memory.admit(retry != null ? retry[1] : request);
        Admission b = redis.admit(retry != null ? retry[2] : request);
        assertThat(b.getClass()).as("answer at step %d", step).isEqualTo(a.getClass());
        if (a instanceof Admission.Deferred da) {
          deferrals++;
          deferred.add(
              new AdmissionRequest[] {
                request,
                request.withBooking(da.booking()),
                request.withBooking(((Admission.Deferred) b).booking())
              });
        } else if (a instanceof Admission.Admitted aa) {
          grants.add(new Grant[] {aa.grant(), ((Admission.Admitted) b).grant()});
          admitted++;
        }
        touched = request;
      }
      compareLevels(step, memory.levels(), store.levels().orElseThrow());
      if (touched.tenant() != null && policy.priorityIndex(touched.priority()) >= 0) {
        Optional<QueueState> q = memory.queueState(touched.tenant(), touched.priority());
        Optional<QueueState> r = store.queueState(touched.tenant(), touched.priority());
        assertThat(r.isPresent()).as("queue kept after step %d", step).isEqualTo(q.isPresent());
        if (q.isPresent()) {
          assertThat(r.get().level())
              .as("queue lag after step %d", step)
              .isEqualTo(q.get().level());
          assertThat(r.get().rate())
              .as("queue rate after step %d", step)
              .isCloseTo(q.get().rate(), within(1e-9 * Math.max(1, Math.abs(q.get().rate()))));
          assertThat(r.get().weight()).isEqualTo(q.get().weight());
          assertThat(r.get().updatedMicros()).isEqualTo(q.get().updatedMicros());
          queuesCompared++;
        }
      }
    }
    assertThat(admitted).isGreaterThan(STEPS / 10);
    assertThat(deferrals).isGreaterThan(STEPS / 20);
    assertThat(queuesCompared).isGreaterThan(STEPS / 2);
  }

  @Test
  void aGateOfTheOtherRule_startsTheStateAnew_andAnAdminWriteKeepsTheRule() {
    Policy policy =
        Policy.builder("rules/model")
            .dimension(Dimension.REQUESTS, 10, 10)
            .dimension(Dimension.TOKENS, 1_000, 1_000)
            .priority("P1", 1)
            .build();
    ManualClock clock = new ManualClock(1_000_000_000L);
    RedisGateConfig buckets =
        TestRedis.shared().config().policy(policy).timeSource(TimeSource.caller(clock)).build();
    RedisGate nested = RedisGate.over(TestRedis.shared().connection(), false, buckets);
    for (int i = 0; i < 4; i++) {
      assertThat(nested.admit("a", "P1", Cost.requests(1).tokens(200)))
          .isInstanceOf(Admission.Admitted.class);
    }
    assertThat(nested.policyStore().fairQueuing()).isFalse();
    assertThat(nested.policyStore().levels().orElseThrow().global().get(Dimension.REQUESTS))
        .isCloseTo(6, within(1e-9));

    RedisGate fair =
        RedisGate.over(
            TestRedis.shared().connection(),
            false,
            TestRedis.shared()
                .config()
                .keyPrefix(buckets.keyPrefix())
                .policy(policy)
                .timeSource(TimeSource.caller(clock))
                .fairQueuing(true)
                .build());
    RedisPolicyStore store = fair.policyStore();
    assertThat(store.fairQueuing()).isTrue();
    assertThat(store.levels()).as("the nested buckets' state is dropped").isEmpty();

    InMemoryGate memory = InMemoryGate.createFairQueuing(policy, clock);
    assertThat(fair.admit("a", "P1", Cost.requests(1).tokens(300)))
        .isInstanceOf(Admission.Admitted.class);
    memory.admit("a", "P1", Cost.requests(1).tokens(300));
    compareLevels(0, memory.levels(), store.levels().orElseThrow());
    assertThat(store.levels().orElseThrow().global().get(Dimension.TOKENS))
        .isCloseTo(700, within(1e-6));

    try (RedisPolicyStore admin = RedisPolicyStore.connect(buckets)) {
      admin.setPriorityWeight("P1", 2);
      assertThat(admin.fairQueuing()).as("a store without a gate keeps the rule").isTrue();
      compareLevels(1, memory.levels(), admin.levels().orElseThrow());
    }
  }

  /** Levels equal to the last bit but for the cap's level, computed from the same doubles. */
  private static void compareLevels(int step, GateLevels memory, GateLevels redis) {
    TwinGates.assertSameQueues(step, memory, redis);
    assertThat(redis.classes()).as("class levels after step %d", step).isEqualTo(memory.classes());
    assertThat(redis.global().keySet()).isEqualTo(memory.global().keySet());
    for (Map.Entry<String, Double> e : memory.global().entrySet()) {
      assertThat(redis.global().get(e.getKey()))
          .as("cap level %s after step %d", e.getKey(), step)
          .isCloseTo(e.getValue(), within(1e-9 * Math.max(1, Math.abs(e.getValue()))));
    }
    for (String k : memory.admittedRates().keySet()) {
      for (Map.Entry<String, Double> e : memory.admittedRates().get(k).entrySet()) {
        assertThat(redis.admittedRates().get(k).get(e.getKey()))
            .as("use of %s in %s after step %d", k, e.getKey(), step)
            .isCloseTo(e.getValue(), within(1e-9 * Math.max(1, Math.abs(e.getValue()))));
      }
    }
  }
}
