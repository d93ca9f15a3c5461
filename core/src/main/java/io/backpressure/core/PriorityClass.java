package io.backpressure.core;

import java.time.Duration;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * A priority class, its weight {@code ω_k} and its default wait limit. Under backlog, classes share
 * each dimension in proportion to their weights (or, in strict mode, in their order).
 *
 * <p>A value, safe to read from any thread.
 *
 * @param name the class's name, e.g. {@code P1}
 * @param weight {@code ω_k}, in (0, 1e15]
 * @param maxWait how long a call of this class that carries no {@link AdmissionRequest#maxWait()}
 *     may wait for its turn before it is answered {@link Admission.Expired}; {@code null} for no
 *     limit
 */
public record PriorityClass(String name, double weight, @Nullable Duration maxWait) {
  public PriorityClass {
    Objects.requireNonNull(name, "name");
    PolicyChecks.name("priorities.name", name);
    PolicyChecks.positive("priorities." + name, weight);
    if (maxWait != null && (maxWait.isNegative() || maxWait.isZero())) {
      throw new InvalidPolicyException(
          "priorities." + name + ".max_wait",
          "priorities." + name + ".max_wait must be a positive duration, got " + maxWait);
    }
  }

  /** A class with no default wait limit. */
  public PriorityClass(String name, double weight) {
    this(name, weight, null);
  }
}
