package io.backpressure.spring.boot;

import org.springframework.beans.factory.config.BeanFactoryPostProcessor;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;

/**
 * Fails start-up on a {@code backpressure.*} key that the starter does not know, naming it and its
 * nearest valid spelling ({@link KnownProperties}), before any bean is created, and whether or not
 * a target is configured (a misspelt {@code targets} would otherwise leave the application
 * ungated). Off with {@code backpressure.enabled=false}.
 */
@AutoConfiguration(before = BackpressureAutoConfiguration.class)
@ConditionalOnProperty(prefix = "backpressure", name = "enabled", matchIfMissing = true)
public class BackpressurePropertiesAutoConfiguration {

  @Bean
  static BeanFactoryPostProcessor backpressureKnownProperties(Environment environment) {
    return beanFactory -> KnownProperties.check(environment);
  }
}
