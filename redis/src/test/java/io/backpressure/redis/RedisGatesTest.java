package io.backpressure.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.backpressure.core.Admission;
import io.backpressure.core.Cost;
import io.backpressure.core.FailOpenGate;
import io.backpressure.core.Gate;
import io.backpressure.core.ManualClock;
import io.backpressure.core.Policy;
import java.time.Duration;
import java.util.NoSuchElementException;
import org.junit.jupiter.api.Test;

/**
 * Many targets over one connection: one gate per name, separate state, one connection on the
 * server.
 */
class RedisGatesTest {
  private final ManualClock clock = new ManualClock(1_000_000_000_000L);

  private RedisGateConfig.Builder options() {
    return RedisGateConfig.builder(TestRedis.shared().url())
        .keyPrefix(TestRedis.freshPrefix())
        .commandTimeout(Duration.ofSeconds(5))
        .timeSource(TimeSource.caller(clock));
  }

  private static Policy policy(String target, double burst) {
    return Policy.builder(target).dimension("requests", 1, burst).priority("P1", 1).build();
  }

  /** The number of clients connected to the test server. */
  private static int clients() {
    Connection admin = TestRedis.shared().connection();
    String list = admin.await(admin.commands().clientList().toCompletableFuture());
    return (int) list.lines().filter(line -> !line.isBlank()).count();
  }

  @Test
  void manyTargetsShareOneConnection_andKeepSeparateBuckets() {
    int before = clients();
    try (RedisGates gates = RedisGates.connect(options())) {
      for (int i = 0; i < 40; i++) {
        Gate gate = gates.gate(policy("model-" + i, 1 + i % 3));
        assertThat(admittedOfTen(gate)).as("model-%d admits its own burst", i).isEqualTo(1 + i % 3);
      }
      assertThat(gates.targets()).hasSize(40);
      assertThat(clients()).as("one connection for 40 targets").isEqualTo(before + 1);
      assertThat(gates.strict("model-1").connection())
          .isSameAs(gates.strict("model-39").connection());
      assertThat(gates.gate("model-7")).isSameAs(gates.gate(policy("model-7", 99)));
    }
    assertThat(clients()).isEqualTo(before);
  }

  @Test
  void aTargetStoredInRedisIsFoundByName_anUnknownOneIsAnError() {
    RedisGateConfig.Builder options = options();
    try (RedisGates writer = RedisGates.connect(options);
        RedisGates reader = RedisGates.connect(options)) {
      writer.gate(policy("stored/model", 2));
      Gate gate = reader.gate("stored/model");
      assertThat(admittedOfTen(gate)).isEqualTo(2);
      assertThatThrownBy(() -> reader.gate("unknown/model"))
          .isInstanceOf(NoSuchElementException.class)
          .hasMessageContaining("unknown/model");
      assertThatThrownBy(() -> reader.strict("other/model"))
          .isInstanceOf(NoSuchElementException.class)
          .hasMessageContaining("not registered");
    }
  }

  @Test
  void inLocalModeEveryProcessCountsTheOthersAliveForEachTarget() throws InterruptedException {
    RedisGateConfig.Builder options = options();
    assertThat(options.unavailableMode()).isEqualTo(FailOpenGate.Mode.LOCAL);
    try (RedisGates first = RedisGates.connect(options)) {
      first.gate(policy("shared/model", 1));
      first.gate(policy("own/model", 1));
      assertThat(first.liveWorkers("shared/model")).isEqualTo(1);
      try (RedisGates second = RedisGates.connect(options)) {
        second.gate("shared/model");
        assertThat(second.liveWorkers("shared/model"))
            .as("registering beats at once: the first process is alive")
            .isEqualTo(2);
        awaitLiveWorkers(first, "shared/model", 2);
        assertThat(first.liveWorkers("own/model")).isEqualTo(1);
      }
      awaitLiveWorkers(first, "shared/model", 1);
    }
  }

  @Test
  void theOtherModesDoNotBeat() {
    RedisGateConfig.Builder options = options().whenUnavailable(FailOpenGate.Mode.OPEN);
    String workers =
        Keys.of(options.buildFor("open/model", null).keyPrefix(), "open/model").base() + "workers";
    try (RedisGates gates = RedisGates.connect(options)) {
      gates.gate(policy("open/model", 1));
      assertThat(gates.liveWorkers("open/model")).isEqualTo(1);
      Connection admin = TestRedis.shared().connection();
      assertThat(admin.await(admin.commands().exists(workers).toCompletableFuture())).isZero();
    }
  }

  /**
   * Waits for the heartbeat (once a second) to see {@code expected} processes alive for {@code
   * target}; fails after ten seconds with the count it saw.
   */
  private static void awaitLiveWorkers(RedisGates gates, String target, int expected)
      throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (gates.liveWorkers(target) != expected && System.nanoTime() < deadline) {
      Thread.sleep(50);
    }
    assertThat(gates.liveWorkers(target)).as("live workers of %s", target).isEqualTo(expected);
  }

  /** How many of ten tenants' calls at one instant {@code gate} admits. */
  private static int admittedOfTen(Gate gate) {
    int admitted = 0;
    for (int i = 0; i < 10; i++) {
      Admission answer = gate.admit("t" + i, "P1", Cost.requests(1));
      if (answer instanceof Admission.Admitted a) {
        assertThat(a.grant().failedOpen()).isFalse();
        admitted++;
      }
    }
    return admitted;
  }
}
