package io.backpressure.spring.boot;

import io.backpressure.core.Gate;
import java.util.Map;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanFactoryAware;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.beans.factory.support.AutowireCandidateQualifier;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.beans.factory.support.BeanDefinitionRegistryPostProcessor;
import org.springframework.beans.factory.support.RootBeanDefinition;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.EnvironmentAware;
import org.springframework.core.env.Environment;

/**
 * Registers one {@link Gate} bean per configured target, named {@code backpressureGate.<key>} and
 * qualified {@code @Qualifier("<key>")}; the default target's (the one {@code
 * backpressure.default-target} names, or the only one) is the primary {@code Gate}. Each bean is
 * the gate {@link BackpressureGates} built for that key.
 */
final class GateBeanRegistrar
    implements BeanDefinitionRegistryPostProcessor, EnvironmentAware, BeanFactoryAware {
  /** The prefix of each target's bean name. */
  static final String BEAN_PREFIX = "backpressureGate.";

  private Environment environment;
  private BeanFactory beanFactory;

  @Override
  public void setEnvironment(Environment environment) {
    this.environment = environment;
  }

  @Override
  public void setBeanFactory(BeanFactory beanFactory) {
    this.beanFactory = beanFactory;
  }

  @Override
  public void postProcessBeanDefinitionRegistry(BeanDefinitionRegistry registry) {
    Binder binder = Binder.get(environment);
    Map<String, BackpressureProperties.Target> targets = OnBackpressureTargets.targets(binder);
    String named = binder.bind("backpressure.default-target", String.class).orElse(null);
    for (String key : targets.keySet()) {
      RootBeanDefinition definition =
          new RootBeanDefinition(
              Gate.class, () -> beanFactory.getBean(BackpressureGates.class).gate(key));
      definition.addQualifier(new AutowireCandidateQualifier(Qualifier.class, key));
      definition.setPrimary(key.equals(named) || (named == null && targets.size() == 1));
      registry.registerBeanDefinition(BEAN_PREFIX + key, definition);
    }
  }

  @Override
  public void postProcessBeanFactory(ConfigurableListableBeanFactory beanFactory) {}
}
