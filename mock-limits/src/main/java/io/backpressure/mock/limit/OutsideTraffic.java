package io.backpressure.mock.limit;

/**
 * Calls on the same caps that never ask the gate: another application sharing the organisation's
 * key. They arrive evenly spaced, one every {@code 1 / requestsPerS} seconds from the origin of the
 * time scale (the first one interval after it), each costing one request and {@code tokensPerS /
 * requestsPerS} tokens. They are decided like any call: admitted while the caps allow, else refused
 * (and, when rejected calls count, still debited).
 *
 * @param requestsPerS outside calls per second, in {@code [0, 1e5]}; 0 for none
 * @param tokensPerS the tokens they spend per second, in {@code [0, 1e9]}; must be 0 when {@code
 *     requestsPerS} is, since tokens travel with calls
 */
public record OutsideTraffic(double requestsPerS, double tokensPerS) {

  /** No outside traffic. */
  public static final OutsideTraffic NONE = new OutsideTraffic(0, 0);

  /** The highest outside call rate accepted, per second. */
  public static final double MAX_REQUESTS_PER_S = 1e5;

  /**
   * @throws IllegalArgumentException naming the field and its allowed range
   */
  public OutsideTraffic {
    if (!(requestsPerS >= 0) || requestsPerS > MAX_REQUESTS_PER_S) {
      throw new IllegalArgumentException(
          "outside requests_per_s must be in the range [0, 1e5], but was: " + requestsPerS);
    }
    if (!(tokensPerS >= 0) || tokensPerS > Caps.MAX_RATE) {
      throw new IllegalArgumentException(
          "outside tokens_per_s must be in the range [0, 1e9], but was: " + tokensPerS);
    }
    if (requestsPerS == 0 && tokensPerS > 0) {
      throw new IllegalArgumentException(
          "outside tokens_per_s needs outside requests_per_s > 0 to carry them, but requests_per_s"
              + " was 0");
    }
  }

  /** Whether there is any. */
  public boolean any() {
    return requestsPerS > 0;
  }

  /** When the {@code n}-th outside call arrives ({@code n >= 1}), in nanoseconds. */
  long arrivalNanos(long n) {
    return (long) Math.ceil(n * 1e9 / requestsPerS);
  }

  /** The tokens one outside call costs. */
  double tokensPerCall() {
    return tokensPerS / requestsPerS;
  }
}
