package io.backpressure.spring.boot;

import io.backpressure.temporal.ActivityGate;
import io.backpressure.temporal.BackpressureInterceptor;
import io.temporal.common.interceptors.WorkerInterceptor;
import io.temporal.spring.boot.TemporalOptionsCustomizer;
import io.temporal.worker.WorkerFactoryOptions;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Temporal, when {@code backpressure-temporal} is on the class path: an {@link ActivityGate} over
 * the default target's gate for activities to call, and, with Temporal's Spring Boot starter, the
 * worker interceptor added to every worker factory through the starter's {@link
 * TemporalOptionsCustomizer} (how workflows wait: {@code backpressure.temporal.interceptor}).
 */
@AutoConfiguration(after = BackpressureAutoConfiguration.class)
@ConditionalOnClass(ActivityGate.class)
@ConditionalOnBean(BackpressureGates.class)
public class TemporalBackpressureAutoConfiguration {

  @Bean
  @ConditionalOnMissingBean
  ActivityGate backpressureActivityGate(
      BackpressureGates gates, BackpressureProperties properties) {
    return ActivityGate.builder(gates.defaultGate())
        .maxWait(properties.getActivityMaxWait())
        .build();
  }

  /**
   * The worker interceptor, through the Temporal starter's customizer of worker factory options.
   */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(TemporalOptionsCustomizer.class)
  static class InterceptorRegistration {

    @Bean
    TemporalOptionsCustomizer<WorkerFactoryOptions.Builder> backpressureWorkerInterceptor(
        BackpressureProperties properties) {
      BackpressureProperties.Temporal temporal = properties.getTemporal();
      return builder ->
          switch (temporal.getInterceptor()) {
            case EXPLICIT -> withInterceptor(builder, BackpressureInterceptor.create());
            case TRANSPARENT ->
                withInterceptor(
                    builder, BackpressureInterceptor.transparent(temporal.getMaxWait()));
            case NONE -> builder;
          };
    }

    /** Adds {@code interceptor} after those the builder already has. */
    static WorkerFactoryOptions.Builder withInterceptor(
        WorkerFactoryOptions.Builder builder, WorkerInterceptor interceptor) {
      WorkerInterceptor[] existing = builder.build().getWorkerInterceptors();
      List<WorkerInterceptor> all = new ArrayList<>();
      if (existing != null) {
        all.addAll(Arrays.asList(existing));
      }
      all.add(interceptor);
      return builder.setWorkerInterceptors(all.toArray(WorkerInterceptor[]::new));
    }
  }
}
