package io.backpressure.core;

import java.time.Instant;
import java.util.Objects;

/**
 * One administrative change of a target, as its audit trail keeps it: who made it, when, what it
 * changed, and the value before and after, each as people read it ({@code 50000 tokens per day},
 * {@code used 1200}, {@code none}).
 *
 * <p>A value, safe to share between threads.
 *
 * @param at when the change was made
 * @param actor who made it: a person or a system's name, non-blank, at most 128 characters
 * @param target the target changed
 * @param action what was done: {@code set} or {@code reset}
 * @param field the policy field changed, as the policy file names it ({@code quotas.tenants.acme},
 *     {@code dimensions.tokens})
 * @param before the value before the change
 * @param after the value after it
 */
public record AuditEntry(
    Instant at,
    String actor,
    String target,
    String action,
    String field,
    String before,
    String after) {

  /** A set of a value. */
  public static final String SET = "set";

  /** A reset of a counter. */
  public static final String RESET = "reset";

  public AuditEntry {
    Objects.requireNonNull(at, "at");
    checkActor(actor);
    Objects.requireNonNull(target, "target");
    Objects.requireNonNull(action, "action");
    Objects.requireNonNull(field, "field");
    Objects.requireNonNull(before, "before");
    Objects.requireNonNull(after, "after");
  }

  /**
   * Checks who makes a change before anything changes.
   *
   * @throws InvalidPolicyException naming {@code actor} when it is blank or longer than 128
   *     characters
   */
  public static void checkActor(String actor) {
    PolicyChecks.name("actor", actor);
  }

  /**
   * The entry as one log line: {@code <at> <actor> <action> <target> <field>: <before> -> <after>}.
   */
  public String line() {
    return at + " " + actor + " " + action + " " + target + " " + field + ": " + before + " -> "
        + after;
  }

  /**
   * A quota as the trail writes it: {@code 50000 tokens per day}, {@code 40 currency per month}.
   */
  public static String describe(Limits.Quota quota) {
    return number(quota.amount())
        + " "
        + quota.unit().yamlName()
        + " per "
        + quota.period().unitName();
  }

  /** A counter's use as the trail writes it: {@code used 1200}. */
  public static String used(double used) {
    return "used " + number(used);
  }

  /** A number as people write it: integers without a fraction, others as Java prints them. */
  static String number(double x) {
    return x == Math.rint(x) && Math.abs(x) < 1e15 ? Long.toString((long) x) : Double.toString(x);
  }
}
