package io.backpressure.mock.limit;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Cap changes due at fixed times on the limiter's time scale: the provider's true caps drifting
 * while a run goes on. Each {@link Step} replaces the caps it names (per-second rates) at {@code
 * atNanos}; a step's {@code null} rate leaves that dimension as it was.
 *
 * <p>Text form, as the {@code --schedule} option takes it: comma-separated {@code
 * AT_S:REQUESTS_PER_S:TOKENS_PER_S} steps, a rate written {@code -} to leave it unchanged, e.g.
 * {@code 40:30:-,80:60:-} halves a 60/s requests cap from 40 s to 80 s.
 *
 * @param steps the changes, in non-decreasing time order
 */
public record CapSchedule(List<Step> steps) {

  /** No changes. */
  public static final CapSchedule NONE = new CapSchedule(List.of());

  /** The longest schedule accepted: a week, in seconds. */
  public static final double MAX_AT_S = 7 * 86_400;

  /**
   * One change.
   *
   * @param atNanos when it takes effect, {@code >= 0}
   * @param caps the new caps
   */
  public record Step(long atNanos, Caps caps) {
    /**
     * @throws IllegalArgumentException when {@code atNanos} is negative
     */
    public Step {
      Objects.requireNonNull(caps, "caps");
      if (atNanos < 0) {
        throw new IllegalArgumentException("at_s must be >= 0, but was: " + atNanos / 1e9);
      }
    }
  }

  /**
   * @throws IllegalArgumentException when the steps are out of time order
   */
  public CapSchedule {
    steps = List.copyOf(steps);
    for (int i = 1; i < steps.size(); i++) {
      if (steps.get(i).atNanos() < steps.get(i - 1).atNanos()) {
        throw new IllegalArgumentException(
            "schedule steps must be in time order, but step "
                + (i + 1)
                + " (at_s "
                + steps.get(i).atNanos() / 1e9
                + ") comes before step "
                + i
                + " (at_s "
                + steps.get(i - 1).atNanos() / 1e9
                + ")");
      }
    }
  }

  /**
   * Parses the text form {@code AT_S:REQUESTS_PER_S:TOKENS_PER_S[,…]} (blank for none).
   *
   * @throws IllegalArgumentException naming the step at fault and the expected form
   */
  public static CapSchedule parse(String text) {
    if (text == null || text.isBlank()) {
      return NONE;
    }
    List<Step> steps = new ArrayList<>();
    String[] parts = text.split(",", -1);
    for (int i = 0; i < parts.length; i++) {
      steps.add(parseStep(parts[i].strip(), i + 1));
    }
    return new CapSchedule(steps);
  }

  private static Step parseStep(String step, int number) {
    String[] fields = step.split(":", -1);
    if (fields.length != 3) {
      throw new IllegalArgumentException(
          "schedule step "
              + number
              + " must be AT_S:REQUESTS_PER_S:TOKENS_PER_S (a rate may be '-'), but was: '"
              + step
              + "'");
    }
    double atS = number(fields[0], "at_s", number);
    if (!(atS >= 0) || atS > MAX_AT_S) {
      throw new IllegalArgumentException(
          "schedule step " + number + ": at_s must be in the range [0, 604800], but was: " + atS);
    }
    try {
      return new Step(
          Math.round(atS * 1e9),
          new Caps(
              rate(fields[1], "requests_per_s", number), rate(fields[2], "tokens_per_s", number)));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("schedule step " + number + ": " + e.getMessage());
    }
  }

  private static Double rate(String field, String name, int number) {
    return field.strip().equals("-") ? null : number(field, name, number);
  }

  private static double number(String field, String name, int number) {
    try {
      return Double.parseDouble(field.strip());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          "schedule step " + number + ": " + name + " must be a number, but was: '" + field + "'");
    }
  }
}
