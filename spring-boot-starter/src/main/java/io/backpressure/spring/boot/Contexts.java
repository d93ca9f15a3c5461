package io.backpressure.spring.boot;

import io.backpressure.client.GateContext;

/**
 * The default call context from {@code backpressure.default-tenant} and {@code default-priority}.
 */
final class Contexts {
  private Contexts() {}

  /** The default context, or {@code null} when no default tenant is configured. */
  static GateContext defaultContext(BackpressureProperties properties) {
    return properties.getDefaultTenant() == null
        ? null
        : GateContext.of(properties.getDefaultTenant(), properties.getDefaultPriority());
  }
}
