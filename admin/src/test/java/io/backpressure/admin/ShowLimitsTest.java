package io.backpressure.admin;

import static io.backpressure.admin.AdminTarget.TARGET;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.backpressure.core.Admission;
import io.backpressure.core.Cost;
import io.backpressure.core.Dimension;
import io.backpressure.core.Limits;
import io.backpressure.core.ManualClock;
import io.backpressure.core.Policy;
import io.backpressure.redis.RedisGate;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import org.junit.jupiter.api.Test;

/** {@code admin show} reports the calls in flight and the quotas' use, in text and JSON. */
class ShowLimitsTest {
  private final AdminTarget target = new AdminTarget();

  @Test
  void showsCallsInFlightAndEachQuotasUseRemainingAndReset() throws Exception {
    Policy policy =
        Policy.builder(TARGET)
            .dimension(Dimension.REQUESTS, 100, 100)
            .dimension(Dimension.TOKENS, 100_000, 100_000)
            .priority("P1", 0.5)
            .priority("P2", 0.5)
            .concurrency(8, Duration.ofSeconds(60))
            .classConcurrency("P2", 2)
            .tenantConcurrency("acme", 3)
            .tenantQuota("acme", Limits.Quota.tokensPerDay(10_000))
            .classQuota("P2", Limits.Quota.tokensPerMonth(50_000))
            .defaultTenantQuota(Limits.Quota.tokensPerDay(1_000))
            .build();
    try (RedisGate gate = target.gate(policy)) {
      Admission.Admitted done =
          (Admission.Admitted) gate.admit("acme", "P1", Cost.requests(1).tokens(600));
      gate.release(done.grant(), Cost.requests(1).tokens(400));
      gate.admit("acme", "P2", Cost.requests(1).tokens(300));
      gate.admit("zed", "P2", Cost.requests(1).tokens(100));
      gate.admit("acme", "P1", Cost.requests(1).tokens(100));

      JsonNode limits = target.show("--json").json().path("limits");
      JsonNode concurrency = limits.path("concurrency");
      assertThat(concurrency.path("in_flight").asLong()).isEqualTo(3);
      assertThat(concurrency.path("max_in_flight").asLong()).isEqualTo(8);
      assertThat(concurrency.path("expired").asLong()).isZero();
      assertThat(concurrency.path("classes").path("P1").path("in_flight").asLong()).isEqualTo(1);
      assertThat(concurrency.path("classes").path("P1").path("max_in_flight").isNull()).isTrue();
      assertThat(concurrency.path("classes").path("P2").path("in_flight").asLong()).isEqualTo(2);
      assertThat(concurrency.path("classes").path("P2").path("max_in_flight").asLong())
          .isEqualTo(2);
      assertThat(concurrency.path("tenants").path("acme").path("in_flight").asLong()).isEqualTo(2);
      JsonNode acme = limits.path("quotas").path("quotas.tenants.acme");
      assertThat(acme.path("used").asDouble()).isEqualTo(400 + 300 + 100);
      assertThat(acme.path("remaining").asDouble()).isEqualTo(10_000 - 800);
      Instant midnight =
          Instant.now()
              .atZone(ZoneId.of("UTC"))
              .toLocalDate()
              .plusDays(1)
              .atStartOfDay(ZoneId.of("UTC"))
              .toInstant();
      assertThat(Instant.parse(acme.path("reset_at").asText())).isEqualTo(midnight);
      JsonNode p2 = limits.path("quotas").path("quotas.classes.P2");
      assertThat(p2.path("used").asDouble()).isEqualTo(400);
      assertThat(p2.path("per").asText()).isEqualTo("month");

      String text = target.show().out();
      assertThat(text)
          .contains(
              "Calls in flight: 3 of 8 (lease TTL 60s), 0 leases expired unreleased",
              "  class P2: 2 of 2",
              "  class P1: 1\n",
              "  tenant acme: 2 of 3",
              "  quotas.tenants.acme 10000 tokens per day: used 800 (held for calls in flight 0),"
                  + " remaining 9200, resets at "
                  + midnight,
              "  quotas.classes.P2 50000 tokens per month: used 400",
              "  quotas.default_tenant 1000 tokens per day for each tenant without its own");
    }
  }

  @Test
  void showsAnAdaptiveLimitsBoundsAndItsCurrentValue() throws Exception {
    try (RedisGate gate = target.gate(AdminTarget.adaptive())) {
      Admission.Admitted first = (Admission.Admitted) gate.admit("acme", "P1", Cost.requests(1));
      gate.admit("acme", "P1", Cost.requests(1));
      // Released at once, with both leases held: within the latency target, the limit grows by one.
      gate.release(first.grant(), Cost.requests(1));

      JsonNode concurrency = target.show("--json").json().path("limits").path("concurrency");
      assertThat(concurrency.path("in_flight").asLong()).isEqualTo(1);
      assertThat(concurrency.path("max_in_flight").asLong()).isEqualTo(3);
      assertThat(concurrency.path("adaptive").path("min").asLong()).isEqualTo(2);
      assertThat(concurrency.path("adaptive").path("max").asLong()).isEqualTo(16);
      assertThat(concurrency.path("adaptive").path("latency_target_s").asDouble()).isEqualTo(5);
      assertThat(concurrency.path("adaptive").path("measured_latency_s").asDouble())
          .as("the released call's latency, on the server's clock")
          .isPositive()
          .isLessThan(5);
      assertThat(target.show().out())
          .containsPattern(
              "Calls in flight: 1 of an adaptive limit in \\[2, 16] \\(latency target 5s,"
                  + " measured [0-9.]+s\\), now 3 \\(lease TTL 60s\\), 0 leases expired"
                  + " unreleased");
    }
  }

  @Test
  void showsTheLatencyAnAdaptiveLimitMeasuredLastBesideIt() throws Exception {
    ManualClock clock = new ManualClock(1_000_000_000_000L);
    try (RedisGate gate = target.gate(AdminTarget.adaptive(), clock)) {
      JsonNode adaptive =
          target.show("--json").json().path("limits").path("concurrency").path("adaptive");
      assertThat(adaptive.path("measured_latency_s").isNull()).as("none measured yet").isTrue();
      assertThat(target.show().out())
          .contains("an adaptive limit in [2, 16] (latency target 5s, none measured), now 2");

      Admission.Admitted call = (Admission.Admitted) gate.admit("acme", "P1", Cost.requests(1));
      clock.advance(Duration.ofMillis(250));
      gate.release(call.grant(), Cost.requests(1));

      adaptive = target.show("--json").json().path("limits").path("concurrency").path("adaptive");
      assertThat(adaptive.path("measured_latency_s").asDouble()).isEqualTo(0.25);
      // Released within the latency target: the limit grows by one.
      assertThat(target.show().out())
          .contains("an adaptive limit in [2, 16] (latency target 5s, measured 0.25s), now 3");
    }
  }
}
