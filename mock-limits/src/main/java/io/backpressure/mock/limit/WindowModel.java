package io.backpressure.mock.limit;

import java.util.Locale;

/** How a provider counts usage against a cap of {@code C} per period {@code P}. */
public enum WindowModel {
  /**
   * A counter reset at every multiple of {@code P} on the time scale: at most {@code C} per aligned
   * window, so up to {@code 2C} can pass in one unaligned span of length {@code P} straddling a
   * boundary. The harder case for a client that spends its share smoothly.
   */
  FIXED,
  /**
   * An exact sliding log: at most {@code C} in every window of length {@code P}, however placed.
   */
  SLIDING,
  /** A token bucket of capacity {@code C} refilled continuously at {@code C/P}, starting full. */
  BUCKET;

  /**
   * The model named {@code text}: {@code fixed}, {@code sliding} or {@code bucket} (any case,
   * surrounding blanks ignored).
   *
   * @throws IllegalArgumentException naming the allowed values when {@code text} is none of them
   */
  @SuppressWarnings("StatementSwitchToExpressionSwitch") // null and the default share one throw
  public static WindowModel parse(String text) {
    if (text != null) {
      switch (text.strip().toLowerCase(Locale.ROOT)) {
        case "fixed":
          return FIXED;
        case "sliding":
          return SLIDING;
        case "bucket":
          return BUCKET;
        default:
          break;
      }
    }
    throw new IllegalArgumentException(
        "window must be one of fixed, sliding, bucket, but was: " + text);
  }

  /** The lower-case name that {@link #parse(String)} accepts. */
  public String label() {
    return name().toLowerCase(Locale.ROOT);
  }
}
