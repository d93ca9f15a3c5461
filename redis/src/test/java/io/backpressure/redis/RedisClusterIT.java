package io.backpressure.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.backpressure.core.Admission;
import io.backpressure.core.AdmissionRequest;
import io.backpressure.core.Cost;
import io.backpressure.core.Dimension;
import io.backpressure.core.FailOpenGate;
import io.backpressure.core.Gate;
import io.backpressure.core.Grant;
import io.backpressure.core.ManualClock;
import io.backpressure.core.Policy;
import io.backpressure.core.testing.WindowPeak;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * The Redis backend on a real Redis Cluster of three masters and three replicas on loopback ({@link
 * TestCluster}): the same decisions as on a single primary (scripts routed by their keys, and
 * reloaded where a node has lost them), and a master killed under load from many targets and
 * threads — calls fail open while its slots have no master, no caller sees an exception, and gating
 * resumes on the promoted replica with every target within cap plus burst.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class RedisClusterIT {
  private static final int TARGETS = 12;
  private static final int THREADS = 6;
  private static final double CAP = 30;
  private static final double BURST = 6;

  private TestCluster cluster;

  @BeforeAll
  void startCluster() throws Exception {
    cluster = TestCluster.start();
  }

  @AfterAll
  void stopCluster() {
    if (cluster != null) {
      cluster.close();
    }
  }

  private RedisGateConfig.Builder onCluster() {
    return RedisGateConfig.builder()
        .cluster(cluster.seeds())
        .keyPrefix(TestRedis.freshPrefix())
        .commandTimeout(Duration.ofSeconds(1))
        // The handshake, not what is tested, can take longer than the default 2 s when loaded.
        .connectTimeout(Duration.ofSeconds(30));
  }

  @Test
  @Order(1)
  void perTargetDecisionsAreThoseOfASinglePrimary() {
    ManualClock clock = new ManualClock(1_000_000_000_000L);
    Random random = new Random(17);
    try (RedisGates clustered =
            RedisGates.connect(onCluster().timeSource(TimeSource.caller(clock)));
        RedisGates single =
            RedisGates.connect(
                RedisGateConfig.builder(TestRedis.shared().url())
                    .keyPrefix(TestRedis.freshPrefix())
                    .commandTimeout(Duration.ofSeconds(5))
                    .connectTimeout(Duration.ofSeconds(30))
                    .timeSource(TimeSource.caller(clock)))) {
      List<String> targets = new ArrayList<>();
      Set<Integer> masters = new HashSet<>();
      for (int t = 0; t < 6; t++) {
        Policy policy =
            Policy.builder("diff/model-" + t)
                .dimension(Dimension.REQUESTS, 20, 5)
                .dimension(Dimension.TOKENS, 4_000, 1_000)
                .priority("P1", 0.6)
                .priority("P2", 0.4)
                .build();
        clustered.gate(policy);
        single.gate(policy);
        targets.add(policy.target());
        masters.add(cluster.masterOf(clustered.strict(policy.target()).keys().config()));
      }
      assertThat(masters).as("the targets' masters").hasSizeGreaterThan(1);

      Map<String, String[]> bookings = new HashMap<>();
      List<Granted> grants = new ArrayList<>();
      int deferred = 0;
      for (int step = 0; step < 1_500; step++) {
        if (step == 750) {
          // Every node forgets the scripts: each EVALSHA meets NOSCRIPT and is run with EVAL
          // instead.
          cluster.flushScripts();
        }
        clock.advance(Duration.ofMillis(random.nextInt(40)));
        if (random.nextInt(5) == 0 && !grants.isEmpty()) {
          Granted pair = grants.remove(random.nextInt(grants.size()));
          Cost actual = Cost.requests(1).tokens(random.nextInt(600));
          assertThat(clustered.strict(pair.target()).release(pair.clustered(), actual))
              .as("release at step %d", step)
              .isEqualTo(single.strict(pair.target()).release(pair.single(), actual));
          continue;
        }
        String target = targets.get(random.nextInt(targets.size()));
        String tenant = "tenant-" + random.nextInt(5);
        AdmissionRequest request =
            AdmissionRequest.of(
                tenant,
                random.nextBoolean() ? "P1" : "P2",
                Cost.requests(1).tokens(50 + random.nextInt(400)));
        String[] booked = bookings.remove(target + "/" + tenant);
        Admission a =
            clustered
                .strict(target)
                .admit(booked == null ? request : request.withBooking(booked[0]));
        Admission b =
            single.strict(target).admit(booked == null ? request : request.withBooking(booked[1]));
        assertThat(a.getClass()).as("answer at step %d", step).isEqualTo(b.getClass());
        if (a instanceof Admission.Deferred da && b instanceof Admission.Deferred db) {
          assertThat(da.retryAfter()).as("Δ at step %d", step).isEqualTo(db.retryAfter());
          bookings.put(target + "/" + tenant, new String[] {da.booking(), db.booking()});
          deferred++;
        } else if (a instanceof Admission.Admitted aa && b instanceof Admission.Admitted ab) {
          assertThat(aa.grant().debited())
              .as("debit at step %d", step)
              .isEqualTo(ab.grant().debited());
          grants.add(new Granted(target, aa.grant(), ab.grant()));
        }
      }
      assertThat(deferred).as("deferrals in the trace (caps bind)").isGreaterThan(100);
    }
  }

  /** One call admitted by both backends. */
  private record Granted(String target, Grant clustered, Grant single) {}

  /**
   * A target's gated admissions: the server's decision time (µs) and when the caller saw it (ns).
   */
  private record Stamp(long serverMicros, long localNanos) {}

  /**
   * The strict gate, logging each admission's decision time: what the fail-open wrapper wraps here.
   */
  private record Stamped(RedisGate strict, ConcurrentLinkedQueue<Stamp> log) implements Gate {
    @Override
    public String target() {
      return strict.target();
    }

    @Override
    public Admission admit(AdmissionRequest request) {
      RedisGate.Decision decision = strict.connection().await(strict.decide(request));
      if (decision.admission() instanceof Admission.Admitted) {
        log.add(new Stamp(decision.decidedAtMicros(), System.nanoTime()));
      }
      return decision.admission();
    }

    @Override
    public boolean release(Grant grant, Cost actual) {
      return strict.release(grant, actual);
    }
  }

  /** What the callers saw for one target. */
  private static final class Seen {
    final ConcurrentLinkedQueue<Stamp> gated = new ConcurrentLinkedQueue<>();

    /** When (caller time) each call that was admitted ungated asked. */
    final ConcurrentLinkedQueue<Long> ungated = new ConcurrentLinkedQueue<>();

    final ConcurrentLinkedQueue<Long> deferred = new ConcurrentLinkedQueue<>();
  }

  @Test
  @Order(2)
  void aKilledMasterIsFailedOver_callsFailOpenMeanwhile_andGatingResumesWithinCapPlusBurst()
      throws Exception {
    cluster.awaitHealthy(30_000);
    Policy[] policies = new Policy[TARGETS];
    Gate[] gates = new Gate[TARGETS];
    Seen[] seen = new Seen[TARGETS];
    AtomicLong exceptions = new AtomicLong();
    AtomicReference<Throwable> firstException = new AtomicReference<>();
    try (RedisGates registry = RedisGates.connect(onCluster())) {
      Map<Integer, List<Integer>> targetsByMaster = new HashMap<>();
      for (int t = 0; t < TARGETS; t++) {
        policies[t] =
            Policy.builder("fail/model-" + t)
                .dimension(Dimension.REQUESTS, CAP, BURST)
                .priority("P1", 1)
                .build();
        registry.gate(policies[t]);
        seen[t] = new Seen();
        RedisGate strict = registry.strict(policies[t].target());
        gates[t] = FailOpenGate.around(new Stamped(strict, seen[t].gated)).build();
        targetsByMaster
            .computeIfAbsent(cluster.masterOf(strict.keys().config()), m -> new ArrayList<>())
            .add(t);
      }
      assertThat(targetsByMaster).as("targets by master").hasSize(3);
      cluster.awaitReplicasInSync(30_000);

      long start = System.nanoTime();
      List<Thread> callers = new ArrayList<>();
      AtomicReference<Boolean> stop = new AtomicReference<>(false);
      for (int c = 0; c < THREADS; c++) {
        int offset = c;
        Thread caller =
            new Thread(() -> call(gates, seen, offset, stop, exceptions, firstException));
        caller.start();
        callers.add(caller);
      }
      Thread.sleep(3_000);
      long killedAt = System.nanoTime();
      int victim = cluster.masterOf(registry.strict(policies[0].target()).keys().config());
      List<Integer> onVictim = targetsByMaster.get(victim);
      cluster.kill(victim);
      cluster.awaitHealthy(30_000);
      long promotedAt = System.nanoTime();
      long recoveredAt = promotedAt;
      for (int t : onVictim) {
        long deadline = System.nanoTime() + 20_000_000_000L;
        while (seen[t].gated.stream().noneMatch(s -> s.localNanos() > promotedAt)) {
          assertThat(System.nanoTime())
              .as("gating of %s resumed", policies[t].target())
              .isLessThan(deadline);
          Thread.sleep(20);
        }
        long first =
            seen[t].gated.stream()
                .mapToLong(Stamp::localNanos)
                .filter(n -> n > promotedAt)
                .min()
                .orElseThrow();
        recoveredAt = Math.max(recoveredAt, first);
      }
      Thread.sleep(3_000);
      stop.set(true);
      for (Thread caller : callers) {
        caller.join(30_000);
      }
      long end = System.nanoTime();

      assertThat(exceptions.get())
          .as("exceptions seen by callers (first: %s)", firstException.get())
          .isZero();
      long recovered = recoveredAt;
      for (int t = 0; t < TARGETS; t++) {
        String name = policies[t].target();
        List<Stamp> log = List.copyOf(seen[t].gated);
        assertThat(maxInAnyWindow(log, start, killedAt))
            .as("%s before the kill", name)
            .isLessThanOrEqualTo(CAP + BURST);
        assertThat(maxInAnyWindow(log, recovered, end))
            .as("%s after recovery", name)
            .isLessThanOrEqualTo(CAP + BURST);
        assertThat(seen[t].deferred.stream().filter(n -> n > recovered))
            .as("%s deferrals after recovery (cap binds)", name)
            .isNotEmpty();
        assertThat(seen[t].ungated.stream().filter(n -> n > recovered + 1_000_000_000L))
            .as("%s asked more than 1 s after recovery and admitted ungated", name)
            .isEmpty();
        if (onVictim.contains(t)) {
          assertThat(seen[t].ungated.stream().filter(n -> n > killedAt && n < recovered))
              .as("%s (on the killed master) admitted ungated during the failover", name)
              .isNotEmpty();
        } else {
          assertThat(
                  log.stream()
                      .filter(s -> s.localNanos() > killedAt && s.localNanos() < promotedAt))
              .as("%s (on a live master) gated during the failover", name)
              .isNotEmpty();
        }
      }
      for (int t : onVictim) {
        // The registry's own gate of the target answers from the promoted master too.
        Admission answer =
            registry.gate(policies[t].target()).admit("probe", "P1", Cost.requests(1));
        assertThat(
                answer instanceof Admission.Deferred
                    || (answer instanceof Admission.Admitted a && !a.grant().failedOpen()))
            .as("%s through the registry after the failover: %s", policies[t].target(), answer)
            .isTrue();
      }
      System.out.printf(
          "cluster failover: master %d killed, slots served again after %d ms, gating resumed after %d ms%n",
          victim, (promotedAt - killedAt) / 1_000_000, (recoveredAt - killedAt) / 1_000_000);
    }
  }

  /**
   * One caller: goes round the targets, retrying each deferred call with its booking once Δ has
   * passed.
   */
  private static void call(
      Gate[] gates,
      Seen[] seen,
      int offset,
      AtomicReference<Boolean> stop,
      AtomicLong exceptions,
      AtomicReference<Throwable> firstException) {
    long[] notBefore = new long[gates.length];
    AdmissionRequest[] pending = new AdmissionRequest[gates.length];
    ThreadLocalRandom random = ThreadLocalRandom.current();
    while (!stop.get()) {
      boolean called = false;
      for (int i = 0; i < gates.length; i++) {
        int t = (i + offset) % gates.length;
        long now = System.nanoTime();
        if (notBefore[t] > now) {
          continue;
        }
        called = true;
        AdmissionRequest request =
            pending[t] != null
                ? pending[t]
                : AdmissionRequest.of("tenant-" + random.nextInt(4), "P1", Cost.requests(1));
        try {
          Admission answer = gates[t].admit(request);
          if (answer instanceof Admission.Admitted a) {
            pending[t] = null;
            if (a.grant().failedOpen()) {
              // When the call asked: a caller descheduled after the answer must not date an
              // ungated decision after the recovery it preceded.
              seen[t].ungated.add(now);
            }
            gates[t].release(a.grant(), Cost.requests(1));
          } else if (answer instanceof Admission.Deferred d) {
            seen[t].deferred.add(System.nanoTime());
            pending[t] = request.withBooking(d.booking());
            notBefore[t] = now + d.retryAfter().toNanos();
          } else {
            throw new IllegalStateException("unexpected answer " + answer);
          }
        } catch (Throwable e) {
          exceptions.incrementAndGet();
          firstException.compareAndSet(null, e);
        }
      }
      if (!called) {
        try {
          Thread.sleep(1);
        } catch (InterruptedException e) {
          return;
        }
      }
    }
  }

  /**
   * The most admissions decided in any one-second window (server time) lying within [from, to) of
   * caller time.
   */
  private static double maxInAnyWindow(List<Stamp> log, long fromNanos, long toNanos) {
    List<Long> micros =
        log.stream()
            .filter(s -> s.localNanos() >= fromNanos && s.localNanos() < toNanos)
            .map(Stamp::serverMicros)
            .sorted()
            .toList();
    return WindowPeak.maxCount(micros, 1_000_000);
  }
}
