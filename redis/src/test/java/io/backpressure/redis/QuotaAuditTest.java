package io.backpressure.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.backpressure.core.Admission;
import io.backpressure.core.AuditEntry;
import io.backpressure.core.Cost;
import io.backpressure.core.Dimension;
import io.backpressure.core.Limits;
import io.backpressure.core.ManualClock;
import io.backpressure.core.Policy;
import io.backpressure.core.QuotaHolder;
import io.lettuce.core.RedisException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A quota's change (or an audited policy update) and its audit entry are one atomic step in Redis:
 * the entry is written by the script that changes the policy or the counter, before it changes
 * them, so a refused entry leaves the change undone and a change is never left without its entry.
 */
class QuotaAuditTest {
  private static final QuotaHolder ACME = QuotaHolder.tenant("acme");

  private static Policy policy() {
    return Policy.builder("audit/model")
        .dimension(Dimension.REQUESTS, 100, 100)
        .dimension(Dimension.TOKENS, 100_000, 100_000)
        .priority("P1", 1)
        .price(2.5, 10)
        .tenantQuota("acme", Limits.Quota.currencyPerDay(1))
        .build();
  }

  @Test
  void aResetIsAuditedAtTheServersTime_withItsUseExact() {
    RedisGate gate = TestRedis.shared().gate(policy(), TimeSource.server());
    RedisPolicyStore store = gate.policyStore();
    Admission.Admitted admitted =
        (Admission.Admitted) gate.admit("acme", "P1", Cost.requests(1).tokens(1_234));
    gate.release(admitted.grant(), Cost.requests(1).tokens(1_234));
    double used = store.quotaUse(ACME).used();
    assertThat(used).isEqualTo(1_234 * 2.5 / 1e6);

    Instant before = Instant.now();
    AuditEntry reset = store.resetQuota(ACME, "ops@example");
    Instant after = Instant.now();

    assertThat(reset.before()).isEqualTo(AuditEntry.used(used));
    assertThat(store.auditTrail()).containsExactly(reset);
    assertThat(reset.at())
        .as("the server's clock, a loaded machine's seconds around this host's")
        .isBetween(before.minusSeconds(5), after.plusSeconds(5));
    assertThat(store.quotaUse(ACME).used()).isZero();
  }

  @Test
  void anEntryTheTrailRefusesLeavesTheQuotaAndItsCounterUnchanged() {
    ManualClock clock = new ManualClock(1_772_956_790L * 1_000_000_000L);
    RedisGateConfig config =
        TestRedis.shared().config().policy(policy()).timeSource(TimeSource.caller(clock)).build();
    RedisGate gate = RedisGate.over(TestRedis.shared().connection(), false, config);
    RedisPolicyStore store = gate.policyStore();
    gate.admit("acme", "P1", Cost.requests(1).tokens(40_000));
    String audit = Keys.of(config.keyPrefix(), config.target()).audit();
    // Not a stream: every XADD to it fails.
    TestRedis.shared()
        .connection()
        .await(
            TestRedis.shared()
                .connection()
                .commands()
                .set(audit, "not a stream")
                .toCompletableFuture());

    assertThat(catchThrowable(() -> store.resetQuota(ACME, "ops@example")))
        .isInstanceOf(RedisException.class);
    assertThat(store.quotaUse(ACME).used()).as("the counter is not reset").isEqualTo(0.1);
    assertThat(
            catchThrowable(
                () -> store.setQuota(ACME, Limits.Quota.currencyPerDay(5), "ops@example")))
        .isInstanceOf(RedisException.class);
    assertThat(store.policy().limits().tenantQuota("acme"))
        .as("the quota is not set")
        .isEqualTo(Limits.Quota.currencyPerDay(1));
    assertThat(
            catchThrowable(
                () ->
                    store.update(
                        p -> p.withPriorityWeight("P1", 3),
                        "ops@example",
                        "priorities.P1",
                        p -> Double.toString(p.priorities().get(0).weight()))))
        .isInstanceOf(RedisException.class);
    assertThat(store.policy().priorities().get(0).weight())
        .as("an audited update is not written either")
        .isEqualTo(1);

    TestRedis.shared()
        .connection()
        .await(TestRedis.shared().connection().commands().del(audit).toCompletableFuture());
    clock.advance(Duration.ofMillis(1));
    AuditEntry set = store.setQuota(ACME, Limits.Quota.currencyPerDay(5), "ops@example");
    AuditEntry reset = store.resetQuota(ACME, "ops@example");
    store.update(
        p -> p.withPriorityWeight("P1", 3),
        "ops@example",
        "priorities.P1",
        p -> Double.toString(p.priorities().get(0).weight()));
    List<AuditEntry> trail = store.auditTrail();
    assertThat(trail).hasSize(3);
    assertThat(trail.subList(0, 2)).containsExactly(set, reset);
    assertThat(trail.get(2).field()).isEqualTo("priorities.P1");
    assertThat(trail.get(2).before()).isEqualTo("1.0");
    assertThat(trail.get(2).after()).isEqualTo("3.0");
    assertThat(set.before()).isEqualTo("1 currency per day");
    assertThat(reset.before()).isEqualTo("used 0.1");
    assertThat(reset.at()).isEqualTo(Instant.parse("2026-03-08T07:59:50.001Z"));
  }
}
