package io.backpressure.core;

import java.util.Objects;

/**
 * A priority class and its weight {@code ω_k}. Under backlog, classes share each dimension in
 * proportion to their weights.
 */
public record PriorityClass(String name, double weight) {
  public PriorityClass {
    Objects.requireNonNull(name, "name");
    PolicyChecks.name("priorities.name", name);
    PolicyChecks.positive("priorities." + name, weight);
  }
}
