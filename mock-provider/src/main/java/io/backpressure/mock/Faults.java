package io.backpressure.mock;

/**
 * Faults switched on in a running provider, for fault injection ({@code POST /admin/faults} or
 * {@link MockProvider#setFaults(Faults)}).
 *
 * @param errors every call is answered 500 at once, unrelated to rate limits, and charged nothing
 * @param latencyFactor the simulated latency of a 200 is multiplied by this, in {@code (0, 1000]};
 *     10 for a provider 10× slower than configured, 1 for none
 */
public record Faults(boolean errors, double latencyFactor) {

  /** No fault. */
  public static final Faults NONE = new Faults(false, 1);

  /** The largest latency factor accepted. */
  public static final double MAX_LATENCY_FACTOR = 1_000;

  /**
   * @throws IllegalArgumentException naming the field and its allowed range
   */
  public Faults {
    if (!(latencyFactor > 0) || latencyFactor > MAX_LATENCY_FACTOR) {
      throw new IllegalArgumentException(
          "latency_factor must be in the range (0, 1000], but was: " + latencyFactor);
    }
  }
}
