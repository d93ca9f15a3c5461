package io.backpressure.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.backpressure.core.Admission;
import io.backpressure.core.Cost;
import io.backpressure.core.Grant;
import io.backpressure.core.InMemoryGate;
import io.backpressure.core.Limits;
import io.backpressure.core.ManualClock;
import io.backpressure.core.Policy;
import io.backpressure.core.QuotaHolder;
import io.backpressure.core.feedback.ProviderSignal;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The limits' meters of a metered in-memory gate: leases, expired leases, class quotas, rejections.
 */
class LimitMetersTest {
  private static final String TARGET = "openai/gpt-4o";

  private final MeterRegistry registry = new SimpleMeterRegistry();
  private final ManualClock clock =
      new ManualClock(Instant.parse("2026-06-30T12:00:00Z").toEpochMilli() * 1_000_000);

  @Test
  void leasesQuotasAndRejectionsByReasonAreMetered() {
    Policy policy =
        Policy.builder(TARGET)
            .dimension("requests", 100, 100)
            .dimension("tokens", 100_000, 100_000)
            .priority("P1", 0.5)
            .priority("P2", 0.5)
            .concurrency(2, Duration.ofSeconds(5))
            .classQuota("P1", Limits.Quota.tokensPerDay(1_000))
            .build();
    InMemoryGate inner = InMemoryGate.create(policy, clock, clock);
    // Every scrape reads afresh: the gauges may sample once per nanosecond.
    MeteredGate gate =
        MeteredGate.builder(inner, registry).levelsMaxAge(Duration.ofNanos(1)).build();

    assertThat(gauge("backpressure.limit.in.flight", null)).isZero();
    assertThat(gauge("backpressure.quota.used", "P1")).isZero();
    assertThat(gauge("backpressure.quota.remaining", "P1")).isEqualTo(1_000);
    assertThat(gauge("backpressure.quota.used", "P2")).as("no quota on P2").isNaN();

    Grant first = admitted(gate.admit("acme", "P1", Cost.requests(1).tokens(600)));
    admitted(gate.admit("acme", "P2", Cost.requests(1).tokens(600)));
    assertThat(gauge("backpressure.limit.in.flight", null)).isEqualTo(2);
    assertThat(gauge("backpressure.quota.used", "P1")).isEqualTo(600);
    assertThat(gauge("backpressure.quota.remaining", "P1")).isEqualTo(400);
    assertThat(gate.admit("globex", "P2", Cost.requests(1).tokens(1)))
        .as("two leases held")
        .isInstanceOf(Admission.Deferred.class);

    gate.release(first, Cost.requests(1).tokens(700));
    assertThat(gauge("backpressure.limit.in.flight", null)).isEqualTo(1);
    assertThat(gauge("backpressure.quota.used", "P1")).as("reconciled").isEqualTo(700);
    assertThat(gate.admit("acme", "P1", Cost.requests(1).tokens(400)))
        .isInstanceOf(Admission.Rejected.class);
    assertThat(
            registry
                .get("backpressure.admissions")
                .tags("priority", "P1", "outcome", "rejected", "reason", "quota_exhausted")
                .counter()
                .count())
        .isEqualTo(1);

    // The P2 call is never released: its lease expires after 5 s and is counted.
    clock.advance(Duration.ofSeconds(6));
    assertThat(gauge("backpressure.limit.in.flight", null)).isZero();
    // The next admission under the limit finds the lease expired and counts it, as on Redis.
    admitted(gate.admit("globex", "P2", Cost.requests(1).tokens(1)));
    assertThat(
            registry
                .get("backpressure.limit.leases.expired")
                .tags("target", TARGET)
                .functionCounter()
                .count())
        .isEqualTo(1);

    inner.resetQuota(QuotaHolder.priorityClass("P1"), "ops");
    assertThat(gauge("backpressure.quota.remaining", "P1")).isEqualTo(1_000);
    gate.close();
    assertThat(registry.find("backpressure.quota.used").gauges()).isEmpty();
  }

  @Test
  void anAdaptiveLimitsCurrentValueAndMeasuredLatencyAreMetered() {
    Policy policy =
        Policy.builder(TARGET)
            .dimension("requests", 100, 100)
            .priority("P1", 1)
            .adaptiveConcurrency(2, 8, Duration.ofSeconds(1))
            .build();
    MeteredGate gate =
        MeteredGate.builder(InMemoryGate.create(policy, clock, clock), registry).build();
    assertThat(gauge("backpressure.limit.concurrency", null)).as("it starts at min").isEqualTo(2);
    assertThat(gauge("backpressure.limit.latency", null)).as("none measured yet").isZero();
    Grant first = admitted(gate.admit("acme", "P1", Cost.requests(1)));
    admitted(gate.admit("acme", "P1", Cost.requests(1)));
    clock.advance(Duration.ofMillis(100));
    gate.release(first, Cost.requests(1));
    assertThat(gauge("backpressure.limit.concurrency", null)).isEqualTo(3);
    assertThat(gauge("backpressure.limit.latency", null))
        .as("admission to release, in seconds")
        .isEqualTo(0.1);
    assertThat(registry.get("backpressure.limit.latency").gauge().getId().getBaseUnit())
        .isEqualTo("seconds");
    gate.feedback(null, new ProviderSignal(529, Set.of(), Map.of(), null, null, 0, false));
    assertThat(gauge("backpressure.limit.concurrency", null)).isEqualTo(2);
    gate.close();
  }

  /**
   * Each terminal refusal until a reset is timed to its reset: a day's calendar cap and a
   * provider's stop as {@code limit_reached}, a class's quota as {@code quota_exhausted}; a refusal
   * that no wait undoes (a cost above the day's whole cap) is counted only as an admission.
   * Mutation tried: the time read from the system clock instead of the gate's (the noon-to-midnight
   * wait is off).
   */
  @Test
  void terminalRefusalsAreTimedToTheirReset() {
    Policy policy =
        Policy.builder(TARGET)
            .dimension("requests", 100, 100)
            .dimension("tokens", 100_000, 100_000)
            .priority("P1", 0.5)
            .priority("P2", 0.5)
            .perDay("requests", 2)
            .classQuota("P2", Limits.Quota.tokensPerMonth(100))
            .build();
    MeteredGate gate =
        MeteredGate.builder(InMemoryGate.create(policy, clock, clock), registry)
            .clock(clock.asClock())
            .build();

    admitted(gate.admit("acme", "P1", Cost.requests(1).tokens(10)));
    admitted(gate.admit("acme", "P1", Cost.requests(1).tokens(10)));
    assertThat(gate.admit("acme", "P1", Cost.requests(1).tokens(10)))
        .isInstanceOf(Admission.Rejected.class);
    assertThat(gate.admit("acme", "P2", Cost.requests(1).tokens(200)))
        .as("above the whole quota: never fits")
        .isInstanceOf(Admission.Rejected.class);

    var dayLimited = registry.get("backpressure.limit.reset.delay").tags("priority", "P1");
    assertThat(dayLimited.tags("reason", "limit_reached").timer().count()).isEqualTo(1);
    assertThat(dayLimited.tags("reason", "limit_reached").timer().max(TimeUnit.HOURS))
        .as("noon to midnight")
        .isEqualTo(12);
    assertThat(
            registry
                .get("backpressure.limit.reset.delay")
                .tags("priority", "P2", "reason", "quota_exhausted")
                .timer()
                .count())
        .as("a cost above the whole quota waits for no reset")
        .isZero();

    clock.advance(Duration.ofDays(1));
    gate.feedback(
        null,
        new ProviderSignal(
            400,
            Set.of(),
            Map.of(),
            Duration.ofHours(3),
            null,
            0,
            false,
            ProviderSignal.Meaning.STOP_UNTIL_RESET));
    assertThat(gate.admit("acme", "P1", Cost.requests(1).tokens(10)))
        .isInstanceOf(Admission.Rejected.class);
    assertThat(dayLimited.tags("reason", "limit_reached").timer().count()).isEqualTo(2);
    assertThat(dayLimited.tags("reason", "limit_reached").timer().totalTime(TimeUnit.HOURS))
        .isEqualTo(15);
    clock.advance(Duration.ofHours(3));
    admitted(gate.admit("acme", "P2", Cost.requests(1).tokens(90)));
    assertThat(gate.admit("acme", "P2", Cost.requests(1).tokens(20)))
        .isInstanceOf(Admission.Rejected.class);
    var quotaExhausted =
        registry
            .get("backpressure.limit.reset.delay")
            .tags("priority", "P2", "reason", "quota_exhausted")
            .timer();
    assertThat(quotaExhausted.count()).isEqualTo(1);
    assertThat(quotaExhausted.max(TimeUnit.HOURS)).as("1 July 15:00 to 1 August").isEqualTo(729);

    gate.close();
  }

  private double gauge(String name, String priority) {
    var search = registry.get(name).tags("target", TARGET);
    if (priority != null) {
      search = search.tags("priority", priority);
    }
    return search.gauge().value();
  }

  private static Grant admitted(Admission answer) {
    assertThat(answer).isInstanceOf(Admission.Admitted.class);
    return ((Admission.Admitted) answer).grant();
  }
}
