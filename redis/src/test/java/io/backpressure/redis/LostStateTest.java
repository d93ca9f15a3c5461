package io.backpressure.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.backpressure.core.Admission;
import io.backpressure.core.AdmissionRequest;
import io.backpressure.core.Cost;
import io.backpressure.core.InMemoryGate;
import io.backpressure.core.ManualClock;
import io.backpressure.core.Policy;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * State lost under a running target (FLUSHALL, a restart without persistence, a deleted state key)
 * restarts the buckets empty, so the provider's current window never sees more than the cap; a
 * target's very first step still starts full. And a script the client has given up on changes
 * nothing. Virtual time (the caller's clock) on a server of the test's own.
 */
class LostStateTest {
  private static final Policy POLICY =
      Policy.builder("lost/model").dimension("requests", 10, 10).priority("P1", 1).build();

  private static final Policy WINDOWED =
      Policy.builder("lost/window")
          .dimension("requests", 10, 10)
          .priority("P1", 1)
          .safeWindow(Duration.ofSeconds(1))
          .build();

  private static int admitted(RedisGate gate, int calls) {
    int n = 0;
    for (int i = 0; i < calls; i++) {
      if (gate.admit("t" + i, "P1", Cost.requests(1)) instanceof Admission.Admitted) {
        n++;
      }
    }
    return n;
  }

  /** Deletes the target's state key, as an eviction or a partial loss would. */
  private static void loseState(RedisGate gate) {
    gate.connection()
        .await(gate.connection().commands().del(gate.keys().state()).toCompletableFuture());
  }

  /**
   * One caller calls back to back for {@code seconds} of virtual time, each deferred attempt
   * retried with its booking when it was told; returns how many calls were admitted.
   */
  private static int callFor(RedisGate gate, ManualClock clock, double seconds) {
    long end = clock.nanoTime() + (long) (seconds * 1e9);
    int n = 0;
    AdmissionRequest request = AdmissionRequest.of("steady", "P1", Cost.requests(1));
    while (clock.nanoTime() <= end) {
      Admission answer = gate.admit(request);
      if (answer instanceof Admission.Admitted) {
        n++;
        request = AdmissionRequest.of("steady", "P1", Cost.requests(1));
      } else {
        Admission.Deferred deferred = (Admission.Deferred) answer;
        clock.advance(deferred.retryAfter());
        request = request.withBooking(deferred.booking());
      }
    }
    return n;
  }

  @Test
  void afterFlushall_theBucketsRestartEmpty_soOneSecondNeverSeesMoreThanTheCap() {
    TestRedis server = TestRedis.owned();
    ManualClock clock = new ManualClock();
    clock.advance(Duration.ofSeconds(100));
    try (RedisGate gate =
        RedisGate.connect(
            RedisGateConfig.builder(server.url())
                .policy(POLICY)
                .timeSource(TimeSource.caller(clock))
                .build())) {
      assertThat(admitted(gate, 10)).as("a new target starts with full buckets").isEqualTo(10);
      clock.advance(Duration.ofSeconds(5));
      gate.connection().await(gate.connection().commands().flushall().toCompletableFuture());

      assertThat(callFor(gate, clock, 1.0))
          .as("admitted in the second after FLUSHALL (cap 10/s)")
          .isBetween(9, 10);
      assertThat(gate.policyStore().read()).as("the policy was written back").isPresent();
    } finally {
      server.stop();
    }
  }

  /**
   * Empty buckets alone are not enough under a safe window: the lost part of the provider's window
   * may hold a whole burst admitted just before the loss, and the refill would add to it.
   */
  @Test
  void underASafeWindow_theRestartedWindowCountsTheLostPeriodAsSpent_thenGatesAtTheCap() {
    ManualClock clock = new ManualClock();
    clock.advance(Duration.ofSeconds(100));
    RedisGate gate = TestRedis.shared().gate(WINDOWED, TimeSource.caller(clock));
    assertThat(admitted(gate, 1)).isEqualTo(1);
    clock.advance(Duration.ofSeconds(5));
    assertThat(admitted(gate, 10)).as("a burst just before the loss").isEqualTo(10);
    clock.advance(Duration.ofMillis(400));
    loseState(gate);
    long lostAt = clock.nanoTime();

    assertThat(callFor(gate, clock, 0.55))
        .as("admitted in the rest of the provider second that already holds the burst")
        .isZero();
    assertThat(clock.nanoTime() - lostAt)
        .as("the deferred call comes back one period after the loss")
        .isEqualTo(Duration.ofSeconds(1).toNanos());
    assertThat(callFor(gate, clock, 0.99))
        .as("the second from one period after the loss: the refilled burst, then the window")
        .isEqualTo(10);
  }

  @Test
  void aDeletedStateKey_restartsEmptyToo() {
    ManualClock clock = new ManualClock();
    clock.advance(Duration.ofSeconds(100));
    RedisGate gate = TestRedis.shared().gate(POLICY, TimeSource.caller(clock));
    assertThat(admitted(gate, 10)).isEqualTo(10);
    clock.advance(Duration.ofSeconds(5));
    loseState(gate);
    assertThat(callFor(gate, clock, 1.0))
        .as("admitted in the second after the state key vanished")
        .isBetween(9, 10);
  }

  @Test
  void afterALostState_redisDecidesAsAnInMemoryGateCreatedAfterLoss() {
    for (Policy policy : List.of(POLICY, WINDOWED)) {
      ManualClock clock = new ManualClock();
      clock.advance(Duration.ofSeconds(100));
      RedisGate gate = TestRedis.shared().gate(policy, TimeSource.caller(clock));
      assertThat(admitted(gate, 10)).isEqualTo(10);
      clock.advance(Duration.ofSeconds(5));
      loseState(gate);
      DecideAlike.decideAlike(gate, InMemoryGate.createAfterLoss(policy, clock), clock, 60);
    }
  }

  @Test
  void aScriptThatStartsAfterTheClientGaveUp_changesNothing() {
    RedisGate gate = TestRedis.shared().gate(POLICY, TimeSource.server());
    assertThat(gate.admit("warm", "P1", Cost.requests(1))).isInstanceOf(Admission.Admitted.class);
    Connection connection = gate.connection();
    Keys keys = gate.keys();
    String before = connection.await(connection.commands().get(keys.state()).toCompletableFuture());
    String version = gate.policyStore().read().orElseThrow().version();
    String[] scriptKeys = keys.step(keys.grant("g-late"), keys.booking("b-late"), keys.waiting(0));
    // ARGV as RedisGate sends it (no wait limit, one request), with a give-up
    // deadline long past (1 µs after the epoch); the guard answers 4, which is not Expired's 3.
    List<Object> reply =
        connection.await(
            connection.run(
                Script.ADMIT,
                scriptKeys,
                version,
                "",
                "late",
                "0",
                "1.0",
                "0",
                "0",
                "-1",
                "1",
                "1"));
    assertThat(reply).containsExactly(4L);
    assertThat(connection.await(connection.commands().get(keys.state()).toCompletableFuture()))
        .isEqualTo(before);
    assertThat(
            connection.await(
                connection
                    .commands()
                    .exists(keys.grant("g-late"), keys.booking("b-late"))
                    .toCompletableFuture()))
        .isZero();
  }
}
