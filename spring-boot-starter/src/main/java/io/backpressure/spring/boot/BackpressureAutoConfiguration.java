package io.backpressure.spring.boot;

import io.backpressure.core.Gate;
import io.backpressure.core.Ticker;
import io.backpressure.metrics.MeteredGate;
import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;

/**
 * The gates: one per entry of {@code backpressure.targets}, as {@link BackpressureGates} and as one
 * {@link Gate} bean per target, metered in the application's {@code MeterRegistry} when there is
 * one. In-memory gates read time from the application's {@link Ticker} bean when it has one (tests
 * drive a {@code ManualClock}), else from the system clock. Off with {@code
 * backpressure.enabled=false} or when no target is configured.
 */
@AutoConfiguration(
    afterName = {
      "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration",
      "org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration"
    })
@ConditionalOnProperty(prefix = "backpressure", name = "enabled", matchIfMissing = true)
@Conditional(OnBackpressureTargets.class)
@EnableConfigurationProperties(BackpressureProperties.class)
public class BackpressureAutoConfiguration {

  @Bean(destroyMethod = "close")
  @ConditionalOnMissingBean
  BackpressureGates backpressureGates(
      BackpressureProperties properties,
      ObjectProvider<GateMetering> metering,
      ObjectProvider<Ticker> clock) {
    return BackpressureGates.build(
        properties, metering.getIfAvailable(), clock.getIfAvailable(Ticker::system));
  }

  @Bean
  static GateBeanRegistrar backpressureGateBeanRegistrar() {
    return new GateBeanRegistrar();
  }

  /** Meters every gate when Micrometer and {@code backpressure-metrics} are on the class path. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass({MeterRegistry.class, MeteredGate.class})
  @ConditionalOnProperty(prefix = "backpressure.metrics", name = "enabled", matchIfMissing = true)
  static class Metering {

    @Bean
    GateMetering backpressureGateMetering(
        ObjectProvider<MeterRegistry> registry, BackpressureProperties properties) {
      return (gate, policy, limits) -> {
        MeterRegistry meters = registry.getIfAvailable();
        if (meters == null) {
          return gate;
        }
        MeteredGate.Builder builder =
            MeteredGate.builder(gate, meters)
                .policy(policy)
                .tenantTag(properties.getMetrics().isTenantTag());
        if (limits != null) {
          builder
              .leases(limits.inFlight(), limits.expiredLeases())
              .concurrencyLimit(limits.concurrencyLimit())
              .quotas(limits.quotas());
        }
        return builder.build();
      };
    }
  }
}
