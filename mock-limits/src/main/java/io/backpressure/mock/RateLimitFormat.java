package io.backpressure.mock;

import java.math.BigDecimal;

/**
 * How rate-limit header values are written: by {@link OpenAiRateLimitHeaders} here, and by the mock
 * provider's Anthropic dialect and endpoints in the {@code mock-provider} module. Stateless and
 * thread-safe.
 */
public final class RateLimitFormat {

  private static final long NANOS_PER_MILLI = 1_000_000L;

  private RateLimitFormat() {}

  /**
   * A duration in OpenAI's header style (Go's {@code time.Duration} text at millisecond precision,
   * rounded up): {@code 0s}, {@code 12ms}, {@code 1s}, {@code 1.5s}, {@code 6m0s}, {@code 1h2m3s}.
   */
  public static String duration(long nanos) {
    long ms = ceilMillis(nanos);
    if (ms == 0) {
      return "0s";
    }
    if (ms < 1_000) {
      return ms + "ms";
    }
    long hours = ms / 3_600_000;
    long minutes = ms / 60_000 % 60;
    String seconds = BigDecimal.valueOf(ms % 60_000, 3).stripTrailingZeros().toPlainString();
    if (hours > 0) {
      return hours + "h" + minutes + "m" + seconds + "s";
    }
    return minutes > 0 ? minutes + "m" + seconds + "s" : seconds + "s";
  }

  /** Milliseconds, rounded up. */
  public static long ceilMillis(long nanos) {
    return Math.max(0, (nanos + NANOS_PER_MILLI - 1) / NANOS_PER_MILLI);
  }

  /** Whole seconds, rounded up: the {@code retry-after} header. */
  public static long ceilSeconds(long nanos) {
    return (ceilMillis(nanos) + 999) / 1_000;
  }

  /** A cap as a number without a needless fraction: {@code 60}, {@code 12000}, {@code 0.5}. */
  public static String limit(double value) {
    return BigDecimal.valueOf(value).stripTrailingZeros().toPlainString();
  }

  /** What is left, in whole units, rounded down. */
  public static String remaining(double value) {
    return Long.toString((long) Math.floor(value));
  }
}
