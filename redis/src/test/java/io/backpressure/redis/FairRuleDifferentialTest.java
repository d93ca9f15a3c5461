package io.backpressure.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.backpressure.core.Admission;
import io.backpressure.core.AdmissionRequest;
import io.backpressure.core.Cost;
import io.backpressure.core.Dimension;
import io.backpressure.core.FairRuleProbe;
import io.backpressure.core.Grant;
import io.backpressure.core.InMemoryGate;
import io.backpressure.core.ManualClock;
import io.backpressure.core.Policy;
import io.backpressure.core.feedback.ProviderSignal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The rebuilt rule ({@code InMemoryGate.createFairQueuing}) against its Lua twin ({@code
 * fair_rule.lua}, a Redis gate with {@link RedisGateConfig#fairQueuing()}) on one virtual clock and
 * the traces of {@link DifferentialTest} (one or two dimensions, one or three classes, shared and
 * strict, weights, reservation, wait limits so that some calls expire, bookings retried early and
 * late, releases with refunds and overshoots, idle gaps, hot updates), with provider feedback and
 * hand-backs ({@code charge}) added: every answer the same kind and Δ, and after every step every
 * field of the rule's state schema ({@code FairRuleSchema}) the same in both. Every branch of the
 * rule's admission and release must run in the traces.
 *
 * <p>Redis applies a hot update at the target's next step, configured at the time of the step
 * before, where Java's configure runs at once with that same time; so the state is compared after a
 * hot update once the next step has run.
 */
class FairRuleDifferentialTest {
  private static final int STEPS = 1_500;
  private static final Map<FairRuleProbe.Branch, Integer> BRANCHES =
      new EnumMap<>(FairRuleProbe.Branch.class);

  /** How many of the parameterized traces ran (a run filtered to other tests runs none). */
  private static int traces;

  private int deltas;
  private int sameMicros;

  @ParameterizedTest(
      name = "seed {0}: safe window {1}, {2} dimensions, {3} classes, strict {4}, reservation {5}")
  @CsvSource({
    "1, false, 2, 1, false, false",
    "8, true,  2, 3, true,  true",
    "3, false, 1, 3, true,  true",
    "6, true,  1, 3, false, false",
    "7, false, 2, 3, false, true",
    "9, true,  1, 1, false, true",
    "11, true, 2, 3, false, false"
  })
  void sameTraceSameDecisionsAndState(
      long seed, boolean safeWindow, int dims, int classes, boolean strict, boolean reservation) {
    Random random = new Random(seed);
    Policy policy =
        DifferentialTest.randomPolicy(random, safeWindow, dims, classes, strict, reservation);
    ManualClock clock = new ManualClock(1_000_000_000L * random.nextInt(1000));
    FairRuleProbe probe = FairRuleProbe.probe(policy);
    TwinGates twins = new TwinGates(probe.gate(clock), TwinGates.fairRedis(policy, clock));
    InMemoryGate memory = twins.memory();
    RedisGate redis = twins.redis();

    List<Pending> deferred = new ArrayList<>();
    List<Grant[]> grants = new ArrayList<>();
    int admitted = 0;
    int expired = 0;
    boolean configured = true;
    List<String> trail = new ArrayList<>();
    for (int step = 0; step < STEPS; step++) {
      clock.advance(DifferentialTest.randomGap(random));
      int op = step == 0 ? 99 : random.nextInt(100);
      String what = "admit";
      if (op < 2) {
        what = "hot update";
        policy = DifferentialTest.hotUpdate(random, policy);
        memory.updatePolicy(policy);
        redis.policyStore().apply(policy);
        redis.release(
            new Grant(
                new Ids().grant(), "nobody", policy.priorityNames().get(0), Cost.none(), false),
            Cost.none());
        // After a policy write Redis decides with the configured caps until the next answer is
        // reported (feedback.lua), where Java goes on with the learned ones: one answer is
        // reported at once, so both decide with the same caps.
        memory.feedback(null, ProviderSignal.ofStatus(200));
        redis.feedback(null, ProviderSignal.ofStatus(200));
        configured = false;
      } else if (op < 4) {
        what = "feedback";
        ProviderSignal signal = signal(random, policy);
        memory.feedback(null, signal);
        redis.feedback(null, signal);
      } else if (op < 6) {
        what = "charge";
        Cost spent = Cost.none().tokens(random.nextInt(200));
        memory.charge(spent);
        redis.charge(spent);
        configured = true;
      } else if (op < 25 && !grants.isEmpty()) {
        what = "release";
        Grant[] pair = grants.get(random.nextInt(grants.size()));
        twins.release(step, pair, DifferentialTest.randomActual(random, pair[0].debited()));
        if (random.nextInt(4) > 0) {
          grants.remove(pair);
        }
        configured = true;
      } else {
        AdmissionRequest request;
        String memoryBooking = null;
        String redisBooking = null;
        if (op < 45 && !deferred.isEmpty()) {
          what = "retry";
          Pending p = deferred.remove(random.nextInt(deferred.size()));
          request = p.request;
          memoryBooking = p.memoryBooking;
          redisBooking = p.redisBooking;
          if (random.nextInt(20) == 0) {
            request =
                new AdmissionRequest(
                    "intruder",
                    request.priority(),
                    request.cost(),
                    request.maxTokens(),
                    null,
                    null);
          } else if (random.nextInt(10) == 0) {
            request = request.withMaxWait(Duration.ofMillis(random.nextInt(200)));
          }
        } else {
          request = DifferentialTest.randomRequest(random, policy);
        }
        Admission a = memory.admit(request.withBooking(memoryBooking));
        Admission b = redis.admit(request.withBooking(redisBooking));
        compare(step, what + " after " + trail, a, b);
        expired += a instanceof Admission.Expired ? 1 : 0;
        if (a instanceof Admission.Deferred da) {
          deferred.add(new Pending(request, da.booking(), ((Admission.Deferred) b).booking()));
        } else if (a instanceof Admission.Admitted aa) {
          grants.add(new Grant[] {aa.grant(), ((Admission.Admitted) b).grant()});
          admitted++;
        }
        configured = true;
      }
      trail.add(step + ":" + what);
      if (trail.size() > 6) {
        trail.remove(0);
      }
      if (configured) {
        compareState(step, what + " after " + trail, probe.state(), state(redis));
      }
    }
    probe.counts().forEach((branch, n) -> BRANCHES.merge(branch, n, Integer::sum));
    traces++;
    assertThat(expired).as("calls that expired").isGreaterThan(0);
    assertThat(admitted).isGreaterThan(STEPS / 10);
    assertThat(sameMicros).as("Δ equal to the µs").isGreaterThanOrEqualTo(deltas * 99 / 100);
  }

  /**
   * State lost (every key of the target deleted, as by a FLUSHALL or a restart without
   * persistence): the Redis gate writes its policy back and its rule starts as {@code FairRule}
   * does after {@code startAfterLoss}, the cap empty and the safe window spent, and then decides
   * and remembers as the in-memory rule does.
   */
  @Test
  void afterLostStateBothStartEmptyWithTheWindowSpent() {
    Random random = new Random(12);
    Policy policy = DifferentialTest.randomPolicy(random, true, 2, 3, false, false);
    ManualClock clock = new ManualClock(1_000_000_000L * random.nextInt(1000));
    RedisGate redis = TwinGates.fairRedis(policy, clock);
    for (int i = 0; i < 50; i++) {
      clock.advance(DifferentialTest.randomGap(random));
      redis.admit(DifferentialTest.randomRequest(random, policy));
    }
    Connection connection = redis.connection();
    List<String> lost =
        connection.await(
            connection.commands().keys(redis.keys().base() + "*").toCompletableFuture());
    connection.await(connection.commands().del(lost.toArray(String[]::new)).toCompletableFuture());

    FairRuleProbe probe = FairRuleProbe.probe(policy);
    probe.startAfterLoss();
    TwinGates twins = new TwinGates(probe.gate(clock), redis);
    InMemoryGate memory = twins.memory();
    List<Grant[]> grants = new ArrayList<>();
    int admitted = 0;
    for (int step = 0; step < 300; step++) {
      clock.advance(DifferentialTest.randomGap(random));
      if (random.nextInt(4) == 0 && !grants.isEmpty()) {
        Grant[] pair = grants.remove(random.nextInt(grants.size()));
        twins.release(step, pair, DifferentialTest.randomActual(random, pair[0].debited()));
      } else {
        AdmissionRequest request = DifferentialTest.randomRequest(random, policy);
        Admission a = memory.admit(request);
        Admission b = redis.admit(request);
        compare(step, "admit after the loss", a, b);
        if (a instanceof Admission.Admitted aa) {
          grants.add(new Grant[] {aa.grant(), ((Admission.Admitted) b).grant()});
          admitted++;
        }
      }
      compareState(step, "after the loss", probe.state(), state(redis));
    }
    assertThat(admitted).as("admitted once the spent window has passed").isPositive();
  }

  /** Every branch of the rule ran in the traces, as the probe counted them. */
  @AfterAll
  static void everyBranchRan() {
    if (traces == 0) {
      return;
    }
    assertThat(BRANCHES.keySet())
        .as("branches that ran: %s", BRANCHES)
        .containsAll(Set.of(FairRuleProbe.Branch.values()));
    for (Map.Entry<FairRuleProbe.Branch, Integer> e : BRANCHES.entrySet()) {
      assertThat(e.getValue()).as("runs of %s (all: %s)", e.getKey(), BRANCHES).isPositive();
    }
  }

  private record Pending(AdmissionRequest request, String memoryBooking, String redisBooking) {}

  /**
   * A provider's answer: a 429 naming the tokens (a cut and a spent window), or a 200 with limit
   * headers below or above the caps.
   */
  private static ProviderSignal signal(Random random, Policy policy) {
    if (random.nextBoolean()) {
      return new ProviderSignal(
          429,
          Set.of(Dimension.TOKENS),
          Map.of(),
          null,
          Cost.none(),
          0,
          false,
          ProviderSignal.Meaning.ofStatus(429));
    }
    double tokens = policy.dimensions().get(policy.dimensionIndex(Dimension.TOKENS)).capPerSecond();
    return ProviderSignal.ofStatus(200)
        .withLimit(
            Dimension.TOKENS,
            Math.floor(tokens * 60 * (0.5 + random.nextDouble())),
            null,
            Duration.ofSeconds(1));
  }

  /** The Lua twin's whole state, by the schema's names. */
  private static Map<String, Double> state(RedisGate redis) {
    Connection connection = redis.connection();
    List<Object> reply =
        connection.await(connection.run(Script.FAIR_STATE, redis.keys().fairStep()));
    Map<String, Double> out = new TreeMap<>();
    for (int i = 0; i < reply.size(); i += 2) {
      String text = (String) reply.get(i + 1);
      double x =
          switch (text) {
            case "inf" -> Double.POSITIVE_INFINITY;
            case "-inf" -> Double.NEGATIVE_INFINITY;
            default -> Double.parseDouble(text);
          };
      out.put((String) reply.get(i), x);
    }
    return out;
  }

  private static void compareState(
      int step, String what, Map<String, Double> memory, Map<String, Double> redis) {
    assertThat(new TreeMap<>(redis).keySet())
        .as("state fields after step %d (%s)", step, what)
        .isEqualTo(new TreeMap<>(memory).keySet());
    for (Map.Entry<String, Double> e : memory.entrySet()) {
      double x = e.getValue();
      double y = redis.get(e.getKey());
      assertThat(close(x, y))
          .as("%s after step %d (%s): in memory %s, in Redis %s", e.getKey(), step, what, x, y)
          .isTrue();
    }
  }

  /** Equal but for the last bits that libm's exp and Java's may differ in. */
  private static boolean close(double a, double b) {
    if (a == b) {
      return true;
    }
    return Math.abs(a - b) <= 1e-12 * Math.max(1, Math.max(Math.abs(a), Math.abs(b)));
  }

  private void compare(int step, String what, Admission memory, Admission redis) {
    if (memory instanceof Admission.Admitted a) {
      assertThat(redis)
          .as("step %d (%s): in memory %s", step, what, memory)
          .isInstanceOf(Admission.Admitted.class);
      assertThat(((Admission.Admitted) redis).grant().debited()).isEqualTo(a.grant().debited());
    } else if (memory instanceof Admission.Deferred d) {
      assertThat(redis)
          .as("step %d (%s): in memory %s", step, what, memory)
          .isInstanceOf(Admission.Deferred.class);
      long delta =
          Math.abs(((Admission.Deferred) redis).retryAfter().toNanos() - d.retryAfter().toNanos());
      assertThat(delta)
          .as("Δ at step %d: %s vs %s", step, memory, redis)
          .isLessThanOrEqualTo(Duration.ofMillis(1).toNanos());
      deltas++;
      if (delta == 0) {
        sameMicros++;
      }
    } else {
      assertThat(redis).as("step %d (%s)", step, what).isEqualTo(memory);
    }
  }
}
