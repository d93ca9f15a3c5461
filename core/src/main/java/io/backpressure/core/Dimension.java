package io.backpressure.core;

import java.util.Objects;

/**
 * One capped resource of a target.
 *
 * <p>A value, safe to read from any thread.
 *
 * @param name the dimension's name, e.g. {@code requests} or {@code tokens}
 * @param capPerSecond the provider's cap {@code C_d}, in units per second (a per-minute cap is
 *     divided by 60 when the policy is built)
 * @param burst the global bucket's capacity {@code B_d}: the most that may be admitted at once
 *     after an idle spell, and the largest single cost that can ever fit
 */
public record Dimension(String name, double capPerSecond, double burst) {

  /** The conventional name of the request-count dimension. */
  public static final String REQUESTS = "requests";

  /** The conventional name of the token dimension; reservation mode applies to it. */
  public static final String TOKENS = "tokens";

  public Dimension {
    Objects.requireNonNull(name, "name");
    PolicyChecks.name("dimensions.name", name);
    PolicyChecks.positive("dimensions." + name + ".cap", capPerSecond);
    PolicyChecks.positive("dimensions." + name + ".burst", burst);
  }
}
