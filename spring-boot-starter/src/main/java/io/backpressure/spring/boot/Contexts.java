package io.backpressure.spring.boot;

import io.backpressure.client.GateContext;
import java.time.Duration;

/**
 * The default call context from {@code backpressure.default-tenant} and {@code default-priority},
 * and the wait budget of {@code backpressure.max-wait}.
 */
final class Contexts {
  private Contexts() {}

  /** The default context, or {@code null} when no default tenant is configured. */
  static GateContext defaultContext(BackpressureProperties properties) {
    return properties.getDefaultTenant() == null
        ? null
        : GateContext.of(properties.getDefaultTenant(), properties.getDefaultPriority());
  }

  /** The wait budget outside activities, or {@code null} when a deferral is thrown at once. */
  static Duration maxWait(BackpressureProperties properties) {
    return properties.getMaxWait().isZero() ? null : properties.getMaxWait();
  }
}
