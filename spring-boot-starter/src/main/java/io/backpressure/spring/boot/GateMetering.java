package io.backpressure.spring.boot;

import io.backpressure.core.Gate;
import io.backpressure.core.Policy;
import java.util.function.Supplier;

/** Wraps a built gate in meters; present only when Micrometer and the metrics module are. */
@FunctionalInterface
interface GateMetering {

  /**
   * The metered gate around {@code gate}.
   *
   * @param policy where the policy in force is read (for an in-memory gate, the gate reads its own)
   */
  Gate meter(Gate gate, Supplier<Policy> policy);
}
