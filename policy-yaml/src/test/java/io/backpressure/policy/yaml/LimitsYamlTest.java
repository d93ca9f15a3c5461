package io.backpressure.policy.yaml;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.backpressure.core.Dimension;
import io.backpressure.core.InvalidPolicyException;
import io.backpressure.core.Limits;
import io.backpressure.core.Policy;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The limits beyond the per-second caps in the YAML: read, written back, refused when bad. */
class LimitsYamlTest {
  private static final String BASE =
      """
      target: limits/model
      dimensions:
        requests: {per_second: 10, per_month: 100000}
        tokens: {per_second: 1000, per_day: 1000000}
      priorities: {P1: 0.7, P2: 0.3}
      """;

  private static final String LIMITS =
      """
      time_zone: America/Los_Angeles
      concurrency: {max_in_flight: 64, lease_ttl: 30s}
      quotas:
        price: {input_per_million: 2.5, output_per_million: 10}
        default_tenant: {tokens: 50000, per: day}
        tenants: {acme: {currency: 40, per: month}}
        classes: {P2: {tokens: 9000000, per: month}}
      """;

  @Test
  void theYamlReadsAsTheBuilderBuildsIt_andWritesBackToAnEqualPolicy() {
    Policy read = PolicyYaml.parse(BASE + LIMITS);
    Policy built =
        Policy.builder("limits/model")
            .dimension(Dimension.REQUESTS, 10, 10)
            .dimension(Dimension.TOKENS, 1_000, 1_000)
            .perMonth(Dimension.REQUESTS, 100_000)
            .perDay(Dimension.TOKENS, 1_000_000)
            .priority("P1", 0.7)
            .priority("P2", 0.3)
            .timeZone("America/Los_Angeles")
            .concurrency(64, Duration.ofSeconds(30))
            .price(2.5, 10)
            .defaultTenantQuota(Limits.Quota.tokensPerDay(50_000))
            .tenantQuota("acme", Limits.Quota.currencyPerMonth(40))
            .classQuota("P2", Limits.Quota.tokensPerMonth(9_000_000))
            .build();
    assertThat(read).isEqualTo(built);
    assertThat(PolicyYaml.parse(PolicyYaml.render(read))).isEqualTo(read);
    assertThat(
            PolicyYaml.render(
                PolicyYaml.parse(
                    BASE.replace(", per_month: 100000", "").replace(", per_day: 1000000", ""))))
        .doesNotContain("time_zone", "quotas", "concurrency");
  }

  @Test
  void badLimitsAreRefusedNamingTheField() {
    refused(
        LIMITS.replace("max_in_flight: 64", "max_in_flight: 0"),
        "concurrency.max_in_flight",
        "concurrency.max_in_flight must be a whole number in [1, 1000000], got 0");
    refused(
        LIMITS.replace("max_in_flight: 64", "max_in_flight: 2.5"),
        "concurrency.max_in_flight",
        "concurrency.max_in_flight must be a whole number");
    refused(
        LIMITS.replace("America/Los_Angeles", "Atlantis/Capital"),
        "time_zone",
        "got 'Atlantis/Capital'");
    refused(
        LIMITS.replace("input_per_million: 2.5", "input_per_million: -2.5"),
        "quotas.price.input_per_million",
        "quotas.price.input_per_million must be a number in [0, 1000000], got -2.5");
    refused(
        LIMITS.replace("classes: {P2:", "classes: {P7:"),
        "quotas.classes.P7",
        "quotas.classes.P7 is a quota on a class the policy does not have; known: [P1, P2]");
    refused(
        LIMITS.replace("per: day", "per: week"),
        "quotas.default_tenant.per",
        "quotas.default_tenant.per must be one of day, month, got 'week'");
    refused(
        LIMITS.replace("{currency: 40, per: month}", "{currency: 40, tokens: 5, per: month}"),
        "quotas.tenants.acme",
        "quotas.tenants.acme needs exactly one of tokens or currency");
    refused(
        LIMITS.replace("{tokens: 50000, per: day}", "{tokens: -5, per: day}"),
        "quotas.default_tenant.tokens",
        "quotas.default_tenant.tokens must be a number in (0, 1000000000000000], got -5.0");
    refused(
        LIMITS.replace("lease_ttl: 30s", "lease_ttl: 2h"),
        "concurrency.lease_ttl",
        "concurrency.lease_ttl must be a duration in [1s, grant_ttl = 900s]");
    refused(
        LIMITS.replace("concurrency: {", "concurrency: {adaptive_limit: true, "),
        "concurrency.adaptive_limit",
        "unknown key 'concurrency.adaptive_limit'");
    assertThatThrownBy(() -> PolicyYaml.parse(BASE.replace("per_day: 1000000", "per_day: 0")))
        .isInstanceOf(InvalidPolicyException.class)
        .hasMessageContaining("dimensions.tokens.per_day must be a number in (0,");
  }

  @Test
  void classAndTenantConcurrencyReadAsTheBuilderBuildsThem_andWriteBack() {
    String scoped =
        """
        concurrency:
          lease_ttl: 20s
          classes: {P2: 8}
          tenants: {acme: 4}
          default_tenant: 2
        """;
    Policy read = PolicyYaml.parse(BASE + scoped);
    Policy built =
        Policy.builder("limits/model")
            .dimension(Dimension.REQUESTS, 10, 10)
            .dimension(Dimension.TOKENS, 1_000, 1_000)
            .perMonth(Dimension.REQUESTS, 100_000)
            .perDay(Dimension.TOKENS, 1_000_000)
            .priority("P1", 0.7)
            .priority("P2", 0.3)
            .concurrency(Limits.MAX_IN_FLIGHT, Duration.ofSeconds(20))
            .classConcurrency("P2", 8)
            .tenantConcurrency("acme", 4)
            .defaultTenantConcurrency(2)
            .build();
    assertThat(read).isEqualTo(built);
    Limits.Concurrency concurrency = read.limits().concurrency();
    assertThat(concurrency.classLimit("P1")).isNull();
    assertThat(concurrency.classLimit("P2")).isEqualTo(8);
    assertThat(concurrency.tenantLimit("acme")).isEqualTo(4);
    assertThat(concurrency.tenantLimit("zed")).isEqualTo(2);
    String rendered = PolicyYaml.render(read);
    assertThat(rendered).doesNotContain("max_in_flight");
    assertThat(PolicyYaml.parse(rendered)).isEqualTo(read);
    Policy both =
        PolicyYaml.parse(BASE + scoped.replace("  lease_ttl", "  max_in_flight: 30\n  lease_ttl"));
    assertThat(both.limits().concurrency().maxInFlight()).isEqualTo(30);
    assertThat(PolicyYaml.parse(PolicyYaml.render(both))).isEqualTo(both);
  }

  @Test
  void badClassAndTenantConcurrencyIsRefusedNamingTheField() {
    String scoped = "concurrency: {max_in_flight: 16, classes: {P2: 8}, tenants: {acme: 4}}\n";
    refused(
        scoped.replace("P2: 8", "P2: 0"),
        "concurrency.classes.P2",
        "concurrency.classes.P2 must be a whole number in [1, 1000000], got 0");
    refused(
        scoped.replace("P2: 8", "P9: 8"),
        "concurrency.classes.P9",
        "concurrency.classes.P9 is a limit on a class the policy does not have; known: [P1, P2]");
    refused(
        scoped.replace("acme: 4", "acme: -1"),
        "concurrency.tenants.acme",
        "concurrency.tenants.acme must be a whole number in [1, 1000000], got -1");
    refused(
        scoped.replace("acme: 4", "acme: 1.5"),
        "concurrency.tenants.acme",
        "concurrency.tenants.acme must be a whole number");
    refused(
        scoped.replace("}}", "}, default_tenant: 0}"),
        "concurrency.default_tenant",
        "concurrency.default_tenant must be a whole number in [1, 1000000], got 0");
    refused(
        "concurrency: {lease_ttl: 30s}\n",
        "concurrency.max_in_flight",
        "concurrency.max_in_flight (or concurrency.adaptive) is required unless classes, tenants"
            + " or default_tenant are limited");
    assertThatThrownBy(
            () ->
                Policy.builder("limits/model")
                    .dimension(Dimension.REQUESTS, 10, 10)
                    .priority("P1", 1)
                    .classConcurrency("P3", 2)
                    .build())
        .isInstanceOf(InvalidPolicyException.class)
        .extracting(e -> ((InvalidPolicyException) e).field())
        .isEqualTo("concurrency.classes.P3");
  }

  @Test
  void adaptiveConcurrencyReadsAsTheBuilderBuildsIt_andWritesBack() {
    String adaptive =
        "concurrency: {adaptive: {min: 4, max: 256, latency_target: 5s}, lease_ttl: 30s,"
            + " classes: {P2: 8}}\n";
    Policy read = PolicyYaml.parse(BASE + adaptive);
    Policy built =
        Policy.builder("limits/model")
            .dimension(Dimension.REQUESTS, 10, 10)
            .dimension(Dimension.TOKENS, 1_000, 1_000)
            .perMonth(Dimension.REQUESTS, 100_000)
            .perDay(Dimension.TOKENS, 1_000_000)
            .priority("P1", 0.7)
            .priority("P2", 0.3)
            .adaptiveConcurrency(4, 256, Duration.ofSeconds(5), Duration.ofSeconds(30))
            .classConcurrency("P2", 8)
            .build();
    assertThat(read).isEqualTo(built);
    assertThat(read.limits().concurrency().adaptive())
        .isEqualTo(new Limits.Adaptive(4, 256, Duration.ofSeconds(5)));
    assertThat(PolicyYaml.parse(PolicyYaml.render(read))).isEqualTo(read);
  }

  @Test
  void badAdaptiveConcurrencyIsRefusedNamingTheField() {
    String good = "concurrency: {adaptive: {min: 4, max: 256, latency_target: 5s}}\n";
    refused(
        good.replace("min: 4", "min: 0"),
        "concurrency.adaptive.min",
        "concurrency.adaptive.min must be a whole number in [1, 1000000], got 0");
    refused(
        good.replace("max: 256", "max: 2"),
        "concurrency.adaptive.max",
        "concurrency.adaptive.max must be a whole number in [adaptive.min = 4, 1000000], got 2");
    refused(
        good.replace("5s", "0s"),
        "concurrency.adaptive.latency_target",
        "concurrency.adaptive.latency_target must be a duration in (0, 24h]");
    refused(good.replace("min: 4, ", ""), "concurrency.adaptive.min", "is required");
    refused(
        good.replace("{adaptive", "{max_in_flight: 8, adaptive"),
        "concurrency.adaptive",
        "exclude each other");
    refused(
        "concurrency: {adaptive: true}\n",
        "concurrency.adaptive",
        "concurrency.adaptive must be a mapping {min, max, latency_target}");
    refused(
        good.replace("latency_target", "latency"),
        "concurrency.adaptive.latency",
        "concurrency.adaptive.latency");
  }

  private static void refused(String limits, String field, String message) {
    assertThatThrownBy(() -> PolicyYaml.parse(BASE + limits))
        .isInstanceOf(InvalidPolicyException.class)
        .hasMessageContaining(message)
        .extracting(e -> ((InvalidPolicyException) e).field())
        .isEqualTo(field);
  }
}
