package io.backpressure.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Test;

/** The limits beyond the per-second caps, as the builder takes them and checks them. */
class LimitsTest {

  private static Policy.Builder base() {
    return Policy.builder("limits/model")
        .requestsPerSecond(10)
        .tokensPerSecond(1_000)
        .priority("P1", 0.7)
        .priority("P2", 0.3);
  }

  @Test
  void theBuilderKeepsEveryLimit() {
    Policy policy =
        base()
            .concurrency(64, Duration.ofSeconds(30))
            .perDay(Dimension.TOKENS, 1_000_000)
            .perMonth(Dimension.REQUESTS, 100_000)
            .timeZone("America/Los_Angeles")
            .price(2.5, 10)
            .defaultTenantQuota(Limits.Quota.tokensPerDay(50_000))
            .tenantQuota("acme", Limits.Quota.currencyPerMonth(40))
            .classQuota("P2", Limits.Quota.tokensPerMonth(9_000_000))
            .build();
    Limits limits = policy.limits();
    assertThat(limits.concurrency()).isEqualTo(new Limits.Concurrency(64, Duration.ofSeconds(30)));
    assertThat(limits.calendar())
        .containsExactly(
            new Limits.Calendar(Dimension.TOKENS, Limits.Period.DAY, 1_000_000),
            new Limits.Calendar(Dimension.REQUESTS, Limits.Period.MONTH, 100_000));
    assertThat(limits.timeZone()).isEqualTo(ZoneId.of("America/Los_Angeles"));
    assertThat(limits.tenantQuota("acme")).isEqualTo(Limits.Quota.currencyPerMonth(40));
    assertThat(limits.tenantQuota("anyone")).isEqualTo(Limits.Quota.tokensPerDay(50_000));
    assertThat(limits.price().of(1_000_000, 500_000)).isEqualTo(7.5);
    assertThat(base().build().limits()).isEqualTo(Limits.NONE);
    assertThat(Limits.NONE.any()).isFalse();
    assertThat(base().concurrency(8).build().limits().concurrency().leaseTtl())
        .isEqualTo(Duration.ofSeconds(60));
  }

  @Test
  void badLimitsAreRefusedNamingTheFieldAndTheRange() {
    refused(
        () -> base().concurrency(0),
        "concurrency.max_in_flight",
        "concurrency.max_in_flight must be a whole number in [1, 1000000], got 0");
    refused(
        () -> base().concurrency(4, Duration.ofMillis(10)),
        "concurrency.lease_ttl",
        "concurrency.lease_ttl must be a duration in [1s, 24h], got 10ms");
    refused(
        () -> base().concurrency(4, Duration.ofMinutes(20)).build(),
        "concurrency.lease_ttl",
        "concurrency.lease_ttl must be a duration in [1s, grant_ttl = 900s]");
    refused(
        () -> base().timeZone("Mars/Olympus_Mons"),
        "time_zone",
        "time_zone must be a region ID of the tz database");
    refused(
        () -> base().price(-1, 10),
        "quotas.price.input_per_million",
        "quotas.price.input_per_million must be a number in [0, 1000000], got -1.0");
    refused(
        () -> base().classQuota("P9", Limits.Quota.tokensPerDay(10)).build(),
        "quotas.classes.P9",
        "quotas.classes.P9 is a quota on a class the policy does not have; known: [P1, P2]");
    refused(
        () -> base().tenantQuota("acme", Limits.Quota.currencyPerDay(10)).build(),
        "quotas.tenants.acme",
        "quotas.tenants.acme is in currency and the policy gives no quotas.price");
    refused(
        () -> base().perDay("images", 10).build(),
        "dimensions.images.per_day",
        "dimensions.images.per_day is on no dimension of the policy; known: [requests, tokens]");
    refused(
        () -> base().perDay(Dimension.TOKENS, 0),
        "dimensions.tokens.per_day",
        "dimensions.tokens.per_day must be a number in (0, 1000000000000000], got 0.0");
    refused(
        () -> base().perDay(Dimension.TOKENS, 10).perDay(Dimension.TOKENS, 20).build(),
        "dimensions.tokens.per_day",
        "dimensions.tokens.per_day is given twice");
    refused(
        () ->
            Policy.builder("r/m")
                .requestsPerSecond(1)
                .priority("P1", 1)
                .defaultTenantQuota(Limits.Quota.tokensPerDay(5))
                .build(),
        "quotas.default_tenant",
        "quotas.default_tenant counts tokens, and the policy has no tokens dimension");
  }

  @Test
  void aDayIsMidnightToMidnightInItsZone_23Or25HoursOnDstDays() {
    ZoneId la = ZoneId.of("America/Los_Angeles");
    Instant springForward = Instant.parse("2026-03-08T12:00:00Z");
    assertThat(Limits.Period.DAY.start(springForward, la))
        .isEqualTo(Instant.parse("2026-03-08T08:00:00Z"));
    assertThat(Limits.Period.DAY.end(springForward, la))
        .isEqualTo(Instant.parse("2026-03-09T07:00:00Z"));
    Instant fallBack = Instant.parse("2026-11-01T12:00:00Z");
    assertThat(
            Duration.between(
                Limits.Period.DAY.start(fallBack, la), Limits.Period.DAY.end(fallBack, la)))
        .isEqualTo(Duration.ofHours(25));
    // Santiago skips midnight itself on its spring-forward day: the day starts at 01:00.
    ZoneId santiago = ZoneId.of("America/Santiago");
    Instant skipped = Instant.parse("2026-09-06T12:00:00Z");
    assertThat(Limits.Period.DAY.start(skipped, santiago).atZone(santiago).getHour()).isEqualTo(1);
    assertThat(
            Limits.Period.MONTH.start(
                Instant.parse("2026-02-28T23:00:00Z"), ZoneId.of("Asia/Tokyo")))
        .isEqualTo(Instant.parse("2026-02-28T15:00:00Z"));
    assertThat(Limits.Period.MONTH.end(Instant.parse("2026-12-31T23:59:59Z"), ZoneId.of("UTC")))
        .isEqualTo(Instant.parse("2027-01-01T00:00:00Z"));
  }

  private static void refused(ThrowingCallable call, String field, String message) {
    assertThatThrownBy(call)
        .isInstanceOf(InvalidPolicyException.class)
        .hasMessageContaining(message)
        .extracting(e -> ((InvalidPolicyException) e).field())
        .isEqualTo(field);
  }
}
