package io.backpressure.mock.limit;

/**
 * New caps for a running {@link UpstreamLimiter}, as rates per second; a {@code null} rate leaves
 * that dimension as it is. The limiter turns a rate into a cap per period by multiplying it by the
 * dimension's period, as the server's options do.
 *
 * @param requestsPerS the requests cap per second, in {@code (0, 1e9]}, or {@code null}
 * @param tokensPerS the tokens cap per second, in {@code (0, 1e9]}, or {@code null}
 */
public record Caps(Double requestsPerS, Double tokensPerS) {

  /** The largest rate accepted, per second. */
  public static final double MAX_RATE = 1e9;

  /**
   * @throws IllegalArgumentException naming the field and its allowed range
   */
  public Caps {
    check("requests_per_s", requestsPerS);
    check("tokens_per_s", tokensPerS);
  }

  private static void check(String field, Double rate) {
    if (rate != null && (!(rate > 0) || rate > MAX_RATE)) {
      throw new IllegalArgumentException(
          field + " must be in the range (0, 1e9], but was: " + rate);
    }
  }
}
