package io.backpressure.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.backpressure.core.Admission;
import io.backpressure.core.AdmissionRequest;
import io.backpressure.core.Cost;
import io.backpressure.core.GateLevels;
import io.backpressure.core.Grant;
import io.backpressure.core.InMemoryGate;
import io.backpressure.core.ManualClock;
import io.backpressure.core.Policy;
import io.backpressure.core.QueueState;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Every script that reads the state (levels.lua, queue.lua) or sizes it (apply.lua) goes through
 * the one layout of nested_buckets.lua: after every step of the same trace, the levels read through
 * Redis equal {@link InMemoryGate#levels()} in every field (L1, L2 and admitted rate of every class
 * and dimension, active queues, queue ages), and the L3 bucket of every queue equals {@link
 * InMemoryGate#queueState}, for several numbers of dimensions and classes (the offsets of the
 * per-class and per-class-and-dimension fields move with both), with and without a safe window. The
 * trace admits, defers, releases and charges (charge.lua) in every class, so every class's fields
 * hold values of their own.
 */
class StateLayoutTest {
  private static final List<String> DIMENSIONS = List.of("requests", "tokens", "images");
  private static final int STEPS = 300;
  private static final int TENANTS = 3;

  @ParameterizedTest(name = "{0} dimensions, {1} classes, safe window {2}")
  @CsvSource({"1, 3, false", "2, 3, true", "2, 4, false", "3, 3, false", "3, 5, true"})
  void levelsAndQueuesReadThroughRedisEqualTheReference(int dims, int classes, boolean window) {
    Policy policy = policy(dims, classes, window);
    ManualClock clock = new ManualClock(1_000_000_000_000L);
    TwinGates twins = TwinGates.nested(policy, clock);
    InMemoryGate memory = twins.memory();
    RedisGate redis = twins.redis();
    Random random = new Random(31L * dims + classes);
    List<Grant[]> grants = new ArrayList<>();
    List<AdmissionRequest[]> waiting = new ArrayList<>();
    int admitted = 0;
    int deferred = 0;
    int charged = 0;
    for (int step = 0; step < STEPS; step++) {
      // Bursts of calls a few ms apart (deferrals) between gaps that let the buckets refill.
      clock.advance(
          Duration.ofMillis(random.nextBoolean() ? random.nextInt(5) : random.nextInt(200)));
      int op = random.nextInt(10);
      if (op == 0) {
        Cost spent = cost(dims, random);
        memory.charge(spent);
        redis.charge(spent);
        charged++;
      } else if (op < 4 && !grants.isEmpty()) {
        twins.release(step, grants.remove(random.nextInt(grants.size())), cost(dims, random));
      } else {
        AdmissionRequest request =
            AdmissionRequest.of(
                "t" + random.nextInt(TENANTS),
                policy.priorityNames().get(random.nextInt(classes)),
                cost(dims, random));
        AdmissionRequest inMemory = request;
        AdmissionRequest inRedis = request;
        if (op < 7 && !waiting.isEmpty()) {
          AdmissionRequest[] retry = waiting.remove(random.nextInt(waiting.size()));
          inMemory = retry[0];
          inRedis = retry[1];
        }
        Admission a = memory.admit(inMemory);
        Admission b = redis.admit(inRedis);
        assertThat(b.getClass()).as("answer at step %d", step).isEqualTo(a.getClass());
        if (a instanceof Admission.Admitted x) {
          grants.add(new Grant[] {x.grant(), ((Admission.Admitted) b).grant()});
          admitted++;
        } else if (a instanceof Admission.Deferred x) {
          waiting.add(
              new AdmissionRequest[] {
                inMemory.withBooking(x.booking()),
                inRedis.withBooking(((Admission.Deferred) b).booking())
              });
          deferred++;
        }
      }
      compareLevels(step, memory.levels(), redis.policyStore().levels().orElseThrow());
      for (String priority : policy.priorityNames()) {
        for (int t = 0; t < TENANTS; t++) {
          compareQueue(
              step,
              memory.queueState("t" + t, priority),
              redis.policyStore().queueState("t" + t, priority));
        }
      }
    }
    assertThat(admitted).as("admitted").isGreaterThan(STEPS / 10);
    assertThat(deferred).as("deferred").isGreaterThan(STEPS / 20);
    assertThat(charged).as("charged").isGreaterThan(0);
  }

  private static Policy policy(int dims, int classes, boolean window) {
    Policy.Builder builder = Policy.builder("layout/d" + dims + "k" + classes + window);
    for (int d = 0; d < dims; d++) {
      builder.dimension(
          DIMENSIONS.get(d), d == 0 ? 24 : 30 * (d + 1) * (d + 1), 40 * (d + 1) * (d + 1));
    }
    for (int k = 0; k < classes; k++) {
      builder.priority("P" + k, classes - k);
    }
    builder.tenantWeight("t1", 2);
    return (window ? builder.safeWindow(Duration.ofSeconds(1)) : builder.withoutSafeWindow())
        .build();
  }

  /** One request, and in every other dimension a different amount up to a quarter of its burst. */
  private static Cost cost(int dims, Random random) {
    Cost cost = Cost.requests(1);
    for (int d = 1; d < dims; d++) {
      cost = cost.with(DIMENSIONS.get(d), 1 + random.nextInt(10 * (d + 1) * (d + 1)));
    }
    return cost;
  }

  private static void compareLevels(int step, GateLevels memory, GateLevels redis) {
    TwinGates.assertSameQueues(step, memory, redis);
    assertClose(step, "L1", redis.global(), memory.global());
    assertThat(redis.classes().keySet()).isEqualTo(memory.classes().keySet());
    assertThat(redis.admittedRates().keySet()).isEqualTo(memory.admittedRates().keySet());
    for (String k : memory.classes().keySet()) {
      assertClose(step, "L2 " + k, redis.classes().get(k), memory.classes().get(k));
      assertClose(
          step, "admitted rate " + k, redis.admittedRates().get(k), memory.admittedRates().get(k));
    }
  }

  private static void compareQueue(
      int step, Optional<QueueState> memory, Optional<QueueState> redis) {
    assertThat(redis.isPresent())
        .as("queue active after step %d", step)
        .isEqualTo(memory.isPresent());
    if (memory.isEmpty() || redis.isEmpty()) {
      return;
    }
    QueueState x = memory.get();
    QueueState y = redis.get();
    assertThat(y.updatedMicros())
        .as("queue refill time after step %d", step)
        .isEqualTo(x.updatedMicros());
    assertThat(y.weight()).as("queue weight after step %d", step).isEqualTo(x.weight());
    assertThat(
            close(y.level(), x.level())
                && close(y.capacity(), x.capacity())
                && close(y.rate(), x.rate()))
        .as("queue after step %d: in memory %s, in Redis %s", step, x, y)
        .isTrue();
  }

  private static void assertClose(
      int step, String what, Map<String, Double> redis, Map<String, Double> memory) {
    assertThat(redis.keySet()).as("%s after step %d", what, step).isEqualTo(memory.keySet());
    for (Map.Entry<String, Double> e : memory.entrySet()) {
      assertThat(close(redis.get(e.getKey()), e.getValue()))
          .as(
              "%s %s after step %d: in memory %s, in Redis %s",
              what, e.getKey(), step, e.getValue(), redis.get(e.getKey()))
          .isTrue();
    }
  }

  /** Equal but for the last bits that libm's exp and Java's may differ in. */
  private static boolean close(double a, double b) {
    return a == b || Math.abs(a - b) <= 1e-9 * Math.max(1, Math.max(Math.abs(a), Math.abs(b)));
  }
}
