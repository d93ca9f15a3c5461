package io.backpressure.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.backpressure.core.Admission;
import io.backpressure.core.Cost;
import io.backpressure.core.Grant;
import io.backpressure.core.ManualClock;
import io.backpressure.core.Policy;
import io.lettuce.core.FlushMode;
import io.lettuce.core.cluster.SlotHash;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** How the gate talks to Redis: round trips, script cache, keys. */
class ScriptsTest {
  private final ManualClock clock = new ManualClock();
  private final Connection connection = TestRedis.shared().connection();

  private static Policy policy(String target) {
    return Policy.builder(target)
        .requestsPerSecond(50)
        .tokensPerSecond(5_000)
        .priority("P1", 0.6)
        .priority("P2", 0.4)
        .idleTtl(Duration.ofSeconds(1))
        .build();
  }

  @Test
  void oneScriptCallPerAdmissionAndPerRelease_noKeysOrScan_andEvictionWithoutAScan() {
    RedisGate gate = TestRedis.shared().gate(policy("rt/model"), TimeSource.caller(clock));
    // Another test may have flushed the script cache: the first calls reload the scripts.
    gate.release(
        ((Admission.Admitted) gate.admit("warm-up", "P1", Cost.requests(0).tokens(0))).grant(),
        Cost.requests(0).tokens(0));
    connection.await(connection.commands().configResetstat().toCompletableFuture());
    int calls = 0;
    for (int round = 0; round < 3; round++) {
      for (int t = 0; t < 200; t++) {
        clock.advance(Duration.ofMillis(1));
        Admission answer =
            gate.admit(
                "tenant-" + round + "-" + t, t % 2 == 0 ? "P1" : "P2", Cost.requests(1).tokens(10));
        calls++;
        if (answer instanceof Admission.Admitted a) {
          gate.release(a.grant(), Cost.requests(1).tokens(5));
          calls++;
        }
      }
      // A deferred call keeps its queue active for an idle TTL after its turn (up to 3 s away
      // here).
      clock.advance(Duration.ofSeconds(6));
    }
    Map<String, Long> stats = commandCalls();
    // A function per call where the server has functions (Redis 7, Valkey), else a script.
    assertThat(stats.get(functions() ? "fcall" : "evalsha")).isEqualTo(calls);
    assertThat(stats).doesNotContainKeys(functions() ? "evalsha" : "fcall");
    assertThat(stats)
        .doesNotContainKeys("keys", "scan", "hscan", "zscan", "hgetall", "hkeys", "eval");
    // Tenants of earlier rounds went idle and were evicted: only the last round's queues remain.
    assertThat(
            gate.policyStore().levels().orElseThrow().activeQueues().values().stream()
                .mapToInt(i -> i)
                .sum())
        .isEqualTo(200);
    assertThat(stats.get("zrem"))
        .as("evictions touch only expired queues, in a few chunks")
        .isLessThanOrEqualTo(3);
  }

  @Test
  void aFlushedScriptCacheIsReloadedTransparently() {
    RedisGate gate = TestRedis.shared().gate(policy("flush/model"), TimeSource.caller(clock));
    Grant grant = ((Admission.Admitted) gate.admit("a", "P1", Cost.requests(1).tokens(10))).grant();
    connection.await(connection.commands().scriptFlush().toCompletableFuture());
    assertThat(gate.admit("a", "P1", Cost.requests(1).tokens(10)))
        .isInstanceOf(Admission.Admitted.class);
    connection.await(connection.commands().scriptFlush().toCompletableFuture());
    assertThat(gate.release(grant, Cost.requests(1).tokens(10))).isTrue();
    assertThat(gate.release(grant, Cost.requests(1).tokens(10))).isFalse();
  }

  @Test
  void theLibraryAndBothItsFunctionsAreNamedByTheLibrarysDigest() {
    String name = Script.LIBRARY.substring("#!lua name=".length(), Script.LIBRARY.indexOf('\n'));
    String digest = name.substring("backpressure_".length());
    assertThat(digest).matches("[0-9a-f]{16}");
    assertThat(Script.ADMIT.function()).isEqualTo("backpressure_admit_" + digest);
    assertThat(Script.RELEASE.function()).isEqualTo("backpressure_release_" + digest);
  }

  @Test
  void aLibraryOfAnotherVersionLeavesThisOneLoadingBesideIt() {
    assumeTrue(functions());
    String name = Script.LIBRARY.substring("#!lua name=".length(), Script.LIBRARY.indexOf('\n'));
    String digest = name.substring("backpressure_".length());
    // Another version's library: other code (one more line), so another digest in every name.
    String other = Script.LIBRARY.replace(digest, "0123456789abcdef") + "-- another version\n";
    connection.await(connection.commands().functionFlush(FlushMode.SYNC).toCompletableFuture());
    connection.await(connection.commands().functionLoad(other).toCompletableFuture());

    try (Connection fresh = Connection.open(TestRedis.shared().config().target("v/m").build())) {
      RedisGate gate =
          RedisGate.over(
              fresh,
              false,
              TestRedis.shared()
                  .config()
                  .policy(policy("versions/model"))
                  .timeSource(TimeSource.caller(clock))
                  .build());
      Map<String, Long> before = commandCalls();
      assertThat(gate.admit("a", "P1", Cost.requests(1).tokens(10)))
          .isInstanceOf(Admission.Admitted.class);
      assertThat(commandCalls().getOrDefault("fcall", 0L) - before.getOrDefault("fcall", 0L))
          .as("the admission ran as a function of its own library")
          .isEqualTo(1);
    } finally {
      connection.await(connection.commands().functionFlush(FlushMode.SYNC).toCompletableFuture());
    }
  }

  @Test
  void aFlushedFunctionLibraryIsReloadedTransparently() {
    RedisGate gate =
        TestRedis.shared().gate(policy("flush-functions/model"), TimeSource.caller(clock));
    Grant grant = ((Admission.Admitted) gate.admit("a", "P1", Cost.requests(1).tokens(10))).grant();
    if (functions()) {
      connection.await(connection.commands().functionFlush(FlushMode.SYNC).toCompletableFuture());
    }
    assertThat(gate.admit("a", "P1", Cost.requests(1).tokens(10)))
        .isInstanceOf(Admission.Admitted.class);
    if (functions()) {
      connection.await(connection.commands().functionFlush(FlushMode.SYNC).toCompletableFuture());
    }
    assertThat(gate.release(grant, Cost.requests(1).tokens(10))).isTrue();
    assertThat(gate.release(grant, Cost.requests(1).tokens(10))).isFalse();
  }

  @Test
  void everyKeyOfATargetIsHashTaggedIntoOneSlot() {
    RedisGateConfig config =
        TestRedis.shared()
            .config()
            .policy(policy("openai/gpt-4o"))
            .timeSource(TimeSource.caller(clock))
            .build();
    RedisGate gate = RedisGate.over(connection, false, config);
    gate.admit("a", "P1", Cost.requests(50).tokens(10));
    Admission deferred = gate.admit("a", "P1", Cost.requests(1).tokens(10));
    assertThat(deferred).isInstanceOf(Admission.Deferred.class);

    List<String> keys =
        connection.await(
            connection.commands().keys(config.keyPrefix() + ":*").toCompletableFuture());
    assertThat(keys)
        .hasSize(7)
        .allSatisfy(k -> assertThat(k).startsWith(config.keyPrefix() + ":{openai/gpt-4o}:"));
    assertThat(keys.stream().map(SlotHash::getSlot).distinct()).hasSize(1);
    assertThat(keys.stream().map(k -> k.substring(k.indexOf('}') + 2).replaceAll(":[^:]*$", ":id")))
        .containsExactlyInAnyOrder("config", "state", "queues", "seen", "g:id", "b:id", "w:id");
  }

  /**
   * Whether the server has functions (Redis 7 and later): then the gate runs its steps with FCALL.
   */
  private boolean functions() {
    String info = connection.await(connection.commands().info("server").toCompletableFuture());
    String version = info.replaceAll("(?s).*redis_version:(\\d+).*", "$1");
    return Integer.parseInt(version) >= 7;
  }

  private Map<String, Long> commandCalls() {
    String info =
        connection.await(connection.commands().info("commandstats").toCompletableFuture());
    Map<String, Long> calls = new HashMap<>();
    for (String line : info.split("\r?\n")) {
      if (line.startsWith("cmdstat_")) {
        String name = line.substring("cmdstat_".length(), line.indexOf(':'));
        String count =
            line.substring(line.indexOf("calls=") + 6, line.indexOf(',', line.indexOf("calls=")));
        calls.put(name, Long.parseLong(count));
      }
    }
    return calls;
  }
}
