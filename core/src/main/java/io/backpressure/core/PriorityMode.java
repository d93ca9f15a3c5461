package io.backpressure.core;

/**
 * How priority classes share a dimension when several want more than the cap.
 *
 * <ul>
 *   <li>{@link #SHARED} (the default): every backlogged class gets its weighted share {@code ω_k /
 *       Σω · C_d}, and what a class leaves unused goes to the others, higher classes first.
 *   <li>{@link #STRICT}: a class gets only what the classes above it leave; while a higher class
 *       wants more than it gets, the classes below it get nothing.
 * </ul>
 */
public enum PriorityMode {
  SHARED,
  STRICT;

  /** The YAML spelling: {@code shared} or {@code strict}. */
  public String yamlName() {
    return name().toLowerCase(java.util.Locale.ROOT);
  }
}
