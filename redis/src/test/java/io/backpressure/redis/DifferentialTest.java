package io.backpressure.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.backpressure.core.Admission;
import io.backpressure.core.AdmissionRequest;
import io.backpressure.core.Cost;
import io.backpressure.core.Dimension;
import io.backpressure.core.GateLevels;
import io.backpressure.core.Grant;
import io.backpressure.core.InMemoryGate;
import io.backpressure.core.Limits;
import io.backpressure.core.ManualClock;
import io.backpressure.core.Policy;
import io.backpressure.core.PriorityMode;
import io.backpressure.core.QueueState;
import io.backpressure.core.QuotaHolder;
import io.backpressure.core.QuotaUse;
import java.time.Duration;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The same random trace against the in-memory reference and the Redis scripts, on one virtual
 * clock: every answer must be the same kind, every Δ the same to the millisecond (and 99 % of them
 * to the microsecond), every rejection the same reason and message, every release the same result;
 * and after every step both must remember the same: the levels (L1, L2, admitted rates, active
 * queues, queue ages) and the tenant-share bucket of the queue the step touched. Traces mix one or
 * two dimensions, one or three classes, shared and strict priority, tenants (weighted and not),
 * costs (some never fitting), reservation, wait limits (per call and per class, so some calls
 * expire), retries with bookings (some presented by the wrong tenant), releases (refunds,
 * overshoots, repeats), idle gaps long enough for queues to expire, and hot updates of caps and
 * weights. Some traces add the limits ({@code Limits}): a concurrency limit, fixed or adaptive,
 * with leases that expire in the long gaps, a cap per day and quotas per tenant and per class; both
 * must then also remember the same calls in flight, expired leases, concurrency limit and quota
 * use.
 */
class DifferentialTest {
  private static final int STEPS = 2_500;
  private static String lastOp;
  private int deltas;
  private int sameMicros;
  private int lastLimit = -1;

  /**
   * One trace per policy shape; the shapes take every option both ways, and every two options in at
   * least three of their four pairings.
   */
  @ParameterizedTest(
      name =
          "seed {0}: safe window {1}, {2} dimensions, {3} classes, strict {4}, reservation {5},"
              + " limits with concurrency {6}")
  @CsvSource({
    "1, false, 2, 1, false, false, none",
    "2, true,  2, 3, true,  true,  none",
    "3, false, 1, 3, true,  true,  none",
    "6, true,  1, 3, false, false, none",
    "7, false, 2, 3, false, true,  none",
    "9, false, 1, 1, false, true,  none",
    "4, false, 2, 3, false, false, fixed",
    "5, true,  1, 1, true,  true,  adaptive"
  })
  void sameTraceSameDecisionsAndState(
      long seed,
      boolean safeWindow,
      int dims,
      int classes,
      boolean strict,
      boolean reservation,
      String concurrency) {
    boolean limits = !concurrency.equals("none");
    Random random = new Random(seed);
    Policy policy = randomPolicy(random, safeWindow, dims, classes, strict, reservation);
    if (limits) {
      policy = withRandomLimits(random, policy, concurrency.equals("adaptive"));
    }
    ManualClock clock = new ManualClock(1_000_000_000L * random.nextInt(1000));
    InMemoryGate memory = InMemoryGate.create(policy, clock, clock);
    RedisGate redis = TestRedis.shared().gate(policy, TimeSource.caller(clock));

    List<Pending> deferred = new ArrayList<>();
    List<Grant[]> grants = new ArrayList<>();
    int admitted = 0;
    int deferrals = 0;
    int expired = 0;
    int limitRejections = 0;
    int increases = 0;
    int decreases = 0;
    AdmissionRequest touched = null;
    // Under an adaptive limit, half the calls give a deadline the measured latency may exceed; a
    // random source of their own leaves the other traces as they were.
    Random deadlines = new Random(seed);
    int late = 0;
    for (int step = 0; step < STEPS; step++) {
      clock.advance(randomGap(random));
      int op = random.nextInt(100);
      lastOp = "admit";
      if (op < 2) {
        lastOp = "hot update";
        policy = hotUpdate(random, policy);
        memory.updatePolicy(policy);
        redis.policyStore().apply(policy);
        // A worker checks requests against its copy of the policy, refreshed by its next call that
        // reaches the server; a release of an unknown grant is such a call and changes nothing.
        assertThat(
                redis.release(
                    new Grant(
                        new Ids().grant(),
                        "nobody",
                        policy.priorityNames().get(0),
                        Cost.none().tokens(0),
                        false),
                    Cost.none().tokens(0)))
            .isFalse();
      } else if (op < 25 && !grants.isEmpty()) {
        lastOp = "release";
        Grant[] pair = grants.get(random.nextInt(grants.size()));
        Cost actual = randomActual(random, pair[0].debited());
        boolean inMemory = memory.release(pair[0], actual);
        boolean inRedis = redis.release(pair[1], actual);
        assertThat(inRedis).as("release at step %d", step).isEqualTo(inMemory);
        if (random.nextInt(4) > 0) {
          grants.remove(pair);
        }
      } else if (op < 45 && !deferred.isEmpty()) {
        Pending p = deferred.remove(random.nextInt(deferred.size()));
        AdmissionRequest request = p.request;
        String memoryBooking = p.memoryBooking;
        String redisBooking = p.redisBooking;
        if (random.nextInt(20) == 0) {
          request =
              new AdmissionRequest(
                  "intruder", request.priority(), request.cost(), request.maxTokens(), null, null);
        } else if (random.nextInt(10) == 0) {
          request = request.withMaxWait(Duration.ofMillis(random.nextInt(200)));
        }
        Admission a = memory.admit(request.withBooking(memoryBooking));
        Admission b = redis.admit(request.withBooking(redisBooking));
        compare(step, a, b);
        touched = request;
        expired += a instanceof Admission.Expired ? 1 : 0;
        if (a instanceof Admission.Deferred da) {
          deferred.add(new Pending(request, da.booking(), ((Admission.Deferred) b).booking()));
          deferrals++;
        } else if (a instanceof Admission.Admitted aa) {
          grants.add(new Grant[] {aa.grant(), ((Admission.Admitted) b).grant()});
          admitted++;
        }
      } else {
        AdmissionRequest request = randomRequest(random, policy);
        if (concurrency.equals("adaptive") && deadlines.nextBoolean()) {
          request = request.withDeadline(Duration.ofMillis(deadlines.nextInt(1_500)));
        }
        Admission a = memory.admit(request);
        Admission b = redis.admit(request);
        compare(step, a, b);
        touched = request;
        expired += a instanceof Admission.Expired ? 1 : 0;
        late +=
            a instanceof Admission.Expired e && e.message().contains("could not be answered")
                ? 1
                : 0;
        limitRejections += a instanceof Admission.Rejected r && r.resetAt() != null ? 1 : 0;
        if (a instanceof Admission.Deferred da) {
          deferred.add(new Pending(request, da.booking(), ((Admission.Deferred) b).booking()));
          deferrals++;
        } else if (a instanceof Admission.Admitted aa) {
          grants.add(new Grant[] {aa.grant(), ((Admission.Admitted) b).grant()});
          admitted++;
        }
      }
      if (touched != null) {
        compareState(step, memory, redis, touched);
        if (limits) {
          int before = memory.concurrencyLimit();
          compareLimits(step, memory, redis, touched);
          increases += lastLimit >= 0 && before > lastLimit ? 1 : 0;
          decreases += lastLimit >= 0 && before < lastLimit ? 1 : 0;
          lastLimit = before;
        }
      }
    }
    if (limits) {
      assertThat(limitRejections).as("calls a quota or a cap per day rejected").isGreaterThan(0);
      assertThat(memory.expiredLeases()).as("leases that expired").isGreaterThan(0);
      if (concurrency.equals("adaptive")) {
        assertThat(increases).as("adaptive limit increases").isGreaterThan(0);
        assertThat(decreases).as("adaptive limit decreases").isGreaterThan(0);
        assertThat(late).as("calls whose deadline the measured latency exceeded").isGreaterThan(0);
      }
    }
    assertThat(expired).as("calls that expired").isGreaterThan(0);
    // The trace must have exercised both outcomes in earnest.
    assertThat(admitted).isGreaterThan(STEPS / 10);
    assertThat(deferrals).isGreaterThan(STEPS / 20);
    // Beyond the millisecond: the arithmetic is the same, so Δ agrees to the microsecond except
    // where libm's exp and Java's differ in the last bit and a rounding lands the other way.
    assertThat(sameMicros).isGreaterThanOrEqualTo(deltas * 99 / 100);
  }

  private record Pending(AdmissionRequest request, String memoryBooking, String redisBooking) {}

  /**
   * What both remember of the limits after a step: the calls in flight, the expired leases, the
   * concurrency limit in force and the latency it measured, and the quota use of the tenant and the
   * class last touched.
   */
  private static void compareLimits(
      int step, InMemoryGate memory, RedisGate redis, AdmissionRequest touched) {
    RedisPolicyStore store = redis.policyStore();
    assertThat(store.inFlight()).as("in flight after step %d", step).isEqualTo(memory.inFlight());
    assertThat(store.expiredLeases())
        .as("expired leases after step %d", step)
        .isEqualTo(memory.expiredLeases());
    assertThat(store.concurrencyLimit())
        .as("concurrency limit after step %d (%s)", step, lastOp)
        .isEqualTo(memory.concurrencyLimit());
    assertThat(store.measuredLatencyMicros())
        .as("measured latency after step %d (%s)", step, lastOp)
        .isEqualTo(memory.measuredLatencyMicros());
    List<QuotaHolder> holders = new ArrayList<>();
    if (touched.tenant() != null && !touched.tenant().isEmpty()) {
      holders.add(QuotaHolder.tenant(touched.tenant()));
    }
    if (memory.policy().limits().classQuotas().containsKey(touched.priority())) {
      holders.add(QuotaHolder.priorityClass(touched.priority()));
    }
    for (QuotaHolder holder : holders) {
      QuotaUse x = memory.quotaUse(holder);
      QuotaUse y = store.quotaUse(holder);
      assertThat(close(y.used(), x.used()) && close(y.held(), x.held()))
          .as("quota of %s after step %d: in memory %s, in Redis %s", holder, step, x, y)
          .isTrue();
      assertThat(y.resetAt()).isEqualTo(x.resetAt());
    }
  }

  /**
   * {@code policy} with limits that bind within a trace: a concurrency limit of a few calls (fixed,
   * or adaptive with a latency target the trace's gaps cross both ways) whose leases expire in the
   * long idle gaps, a cap per day on tokens, a quota of t0's own, one of every other tenant, and
   * one on the first class.
   */
  private static Policy withRandomLimits(Random random, Policy policy, boolean adaptive) {
    double tokens = policy.dimensions().get(policy.dimensionIndex(Dimension.TOKENS)).capPerSecond();
    Duration leaseTtl = Duration.ofSeconds(1 + random.nextInt(3));
    Limits.Concurrency concurrency =
        !adaptive
            ? new Limits.Concurrency(3 + random.nextInt(6), leaseTtl)
            : new Limits.Concurrency(
                new Limits.Adaptive(
                    2, 4 + random.nextInt(8), Duration.ofMillis(50 + random.nextInt(500))),
                leaseTtl);
    String firstClass = policy.priorityNames().get(0);
    return policy.withLimits(
        new Limits(
            concurrency,
            List.of(new Limits.Calendar(Dimension.TOKENS, Limits.Period.DAY, tokens * 25)),
            ZoneId.of("UTC"),
            null,
            Map.of("t0", Limits.Quota.tokensPerDay(tokens / 2)),
            Limits.Quota.tokensPerDay(tokens * 3),
            Map.of(firstClass, Limits.Quota.tokensPerDay(tokens * 10))));
  }

  /** What both remember after a step: the levels, and the bucket of the queue last touched. */
  private static void compareState(
      int step, InMemoryGate memory, RedisGate redis, AdmissionRequest touched) {
    GateLevels a = memory.levels();
    GateLevels b = redis.policyStore().levels().orElseThrow();
    assertThat(b.activeQueues())
        .as("active queues after step %d", step)
        .isEqualTo(a.activeQueues());
    assertThat(b.queueAges()).as("queue ages after step %d", step).isEqualTo(a.queueAges());
    assertClose(step, "L1 (" + lastOp + ")", b.global(), a.global());
    for (String k : a.classes().keySet()) {
      assertClose(step, "L2 " + k, b.classes().get(k), a.classes().get(k));
      assertClose(step, "admitted rate " + k, b.admittedRates().get(k), a.admittedRates().get(k));
    }
    if (touched.tenant() == null
        || touched.priority() == null
        || memory.policy().priorityIndex(touched.priority()) < 0) {
      return;
    }
    Optional<QueueState> q = memory.queueState(touched.tenant(), touched.priority());
    Optional<QueueState> r = redis.policyStore().queueState(touched.tenant(), touched.priority());
    assertThat(r.isPresent())
        .as("queue %s/%s active after step %d", touched.tenant(), touched.priority(), step)
        .isEqualTo(q.isPresent());
    if (q.isPresent()) {
      QueueState x = q.get();
      QueueState y = r.get();
      assertThat(y.updatedMicros())
          .as("queue refill time after step %d", step)
          .isEqualTo(x.updatedMicros());
      assertThat(y.weight()).isEqualTo(x.weight());
      assertThat(
              close(y.level(), x.level())
                  && close(y.capacity(), x.capacity())
                  && close(y.rate(), x.rate()))
          .as("queue %s after step %d: in memory %s, in Redis %s", touched.tenant(), step, x, y)
          .isTrue();
    }
  }

  private static void assertClose(
      int step, String what, Map<String, Double> redis, Map<String, Double> memory) {
    assertThat(redis.keySet()).isEqualTo(memory.keySet());
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
    if (a == b) {
      return true;
    }
    return Math.abs(a - b) <= 1e-9 * Math.max(1, Math.max(Math.abs(a), Math.abs(b)));
  }

  private void compare(int step, Admission memory, Admission redis) {
    if (memory instanceof Admission.Admitted a) {
      assertThat(redis)
          .as("step %d: in memory %s", step, memory)
          .isInstanceOf(Admission.Admitted.class);
      assertThat(((Admission.Admitted) redis).grant().debited()).isEqualTo(a.grant().debited());
    } else if (memory instanceof Admission.Deferred d) {
      assertThat(redis)
          .as("step %d: in memory %s", step, memory)
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
      assertThat(redis).as("step %d", step).isEqualTo(memory);
    }
  }

  static Policy randomPolicy(
      Random random,
      boolean safeWindow,
      int dims,
      int classes,
      boolean strict,
      boolean reservation) {
    double requests = 20 + random.nextInt(100);
    double tokens = 2_000 + random.nextInt(20_000);
    Policy.Builder b = Policy.builder("diff/model");
    if (dims == 2) {
      b.dimension(Dimension.REQUESTS, requests, safeWindow ? requests / 4 : requests);
    }
    b.dimension(Dimension.TOKENS, tokens, safeWindow ? tokens / 4 : tokens)
        .tenantWeight("t0", 3)
        .tenantWeight("t1", 0.5)
        .idleTtl(Duration.ofMillis(500 + random.nextInt(3000)))
        .shareHorizon(Duration.ofMillis(500 + random.nextInt(1500)));
    if (classes == 1) {
      b.priority(
          "P1", 1, random.nextBoolean() ? Duration.ofMillis(100 + random.nextInt(400)) : null);
    } else {
      b.priority("P1", 0.5)
          .priority("P2", 0.3, Duration.ofMillis(100 + random.nextInt(400)))
          .priority("P3", 0.2);
    }
    if (strict) {
      b.priorityMode(PriorityMode.STRICT);
    }
    if (safeWindow) {
      b.safeWindow(Duration.ofSeconds(1));
    }
    if (reservation) {
      b.reservation(true, 200 + random.nextInt(800));
    }
    return b.build();
  }

  static Policy hotUpdate(Random random, Policy policy) {
    return switch (random.nextInt(3)) {
      case 0 -> {
        Dimension d = policy.dimensions().get(random.nextInt(policy.dimensions().size()));
        double cap = d.capPerSecond() * (0.5 + random.nextDouble());
        double burst = policy.safeWindow() == null ? cap : cap / 4;
        yield policy.withDimension(new Dimension(d.name(), cap, burst));
      }
      case 1 ->
          policy.withPriorityWeight(
              policy.priorityNames().get(random.nextInt(policy.priorities().size())),
              0.1 + random.nextDouble());
      default -> policy.withTenantWeight("t" + random.nextInt(8), 0.2 + 3 * random.nextDouble());
    };
  }

  static Duration randomGap(Random random) {
    int kind = random.nextInt(100);
    if (kind < 20) {
      return Duration.ZERO;
    }
    if (kind < 97) {
      return Duration.ofNanos(random.nextInt(40_000_000));
    }
    return Duration.ofMillis(1_000 + random.nextInt(4_000));
  }

  static AdmissionRequest randomRequest(Random random, Policy policy) {
    String tenant = "t" + random.nextInt(8);
    String priority = policy.priorityNames().get(random.nextInt(policy.priorities().size()));
    double burst = policy.dimensions().get(policy.dimensionIndex(Dimension.TOKENS)).burst();
    double tokens =
        random.nextInt(50) == 0 ? burst * 1.5 : random.nextInt((int) Math.max(2, burst / 3));
    boolean requests = policy.dimensionIndex(Dimension.REQUESTS) >= 0;
    Cost cost =
        random.nextInt(10) == 0 || !requests
            ? Cost.none().tokens(tokens)
            : Cost.requests(1).tokens(tokens);
    AdmissionRequest request = AdmissionRequest.of(tenant, priority, cost);
    if (policy.reservation() && random.nextBoolean()) {
      request = request.withMaxTokens(random.nextInt(400));
    }
    return request;
  }

  /**
   * What a released call used: mostly between a fifth of its debit and a tenth above it, and one
   * time in ten no tokens at all (a refused call, which teaches the corrections nothing).
   */
  static Cost randomActual(Random random, Cost debited) {
    if (random.nextInt(10) == 0) {
      return debited.with(Dimension.TOKENS, 0);
    }
    double tokens = debited.amount(Dimension.TOKENS) * (0.2 + 1.1 * random.nextDouble());
    return debited.with(Dimension.TOKENS, Math.floor(tokens));
  }
}
