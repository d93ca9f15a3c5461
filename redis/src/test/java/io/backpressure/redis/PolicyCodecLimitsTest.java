package io.backpressure.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.backpressure.core.Dimension;
import io.backpressure.core.Limits;
import io.backpressure.core.Policy;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** A policy's limits survive the config hash's JSON unchanged; a policy without any stores none. */
class PolicyCodecLimitsTest {

  @Test
  void limitsRoundTripThroughTheStoredJson() {
    Policy.Builder base =
        Policy.builder("codec/model")
            .requestsPerSecond(10)
            .tokensPerSecond(1_000)
            .priority("P1", 0.7)
            .priority("P2", 0.3);
    Policy plain = base.build();
    assertThat(PolicyCodec.toJson(plain)).doesNotContain("limits");
    Policy limited =
        base.concurrency(64, Duration.ofSeconds(30))
            .classConcurrency("P1", 16)
            .tenantConcurrency("acme", 4)
            .defaultTenantConcurrency(2)
            .perDay(Dimension.TOKENS, 1_000_000)
            .perMonth(Dimension.REQUESTS, 100_000)
            .timeZone("Europe/Paris")
            .price(2.5, 10)
            .defaultTenantQuota(Limits.Quota.tokensPerDay(50_000))
            .tenantQuota("acme", Limits.Quota.currencyPerMonth(40))
            .classQuota("P2", Limits.Quota.tokensPerMonth(9_000_000))
            .build();
    assertThat(PolicyCodec.fromJson(PolicyCodec.toJson(limited))).isEqualTo(limited);
    assertThat(PolicyCodec.fromJson(PolicyCodec.toJson(plain))).isEqualTo(plain);
  }
}
