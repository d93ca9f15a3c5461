package io.backpressure.spring.boot;

import java.util.Map;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.core.type.AnnotatedTypeMetadata;

/** Matches when {@code backpressure.targets} configures at least one target. */
final class OnBackpressureTargets extends SpringBootCondition {

  /** The target keys configured in {@code binder}'s environment, in order; empty when none. */
  static Map<String, BackpressureProperties.Target> targets(Binder binder) {
    return binder
        .bind(
            "backpressure.targets",
            Bindable.mapOf(String.class, BackpressureProperties.Target.class))
        .orElse(Map.of());
  }

  @Override
  public ConditionOutcome getMatchOutcome(
      ConditionContext context, AnnotatedTypeMetadata metadata) {
    Map<String, BackpressureProperties.Target> targets =
        targets(Binder.get(context.getEnvironment()));
    return targets.isEmpty()
        ? ConditionOutcome.noMatch("no backpressure.targets configured")
        : ConditionOutcome.match("backpressure.targets " + targets.keySet());
  }
}
