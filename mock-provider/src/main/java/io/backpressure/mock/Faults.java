package io.backpressure.mock;

/**
 * Faults switched on in a running provider, for fault injection ({@code POST /admin/faults} or
 * {@link MockProvider#setFaults(Faults)}).
 *
 * @param errors every call is answered 500 at once, unrelated to rate limits, and charged nothing
 * @param latencyFactor the simulated latency of a 200 is multiplied by this, in {@code (0, 1000]};
 *     10 for a provider 10× slower than configured, 1 for none
 * @param overloaded every call is answered at once with the provider's "overloaded for everyone"
 *     answer, charged nothing and with no rate-limit headers: Anthropic's 529 {@code
 *     overloaded_error}, the Gemini API's 503 {@code UNAVAILABLE}, Bedrock's 503 {@code
 *     ServiceUnavailableException}, OpenAI's and Azure OpenAI's 503; it wins over {@code errors}
 * @param rateLimitedMidStream every stream under way is ended at its next piece by the provider's
 *     rate-limit error, as Anthropic ends a stream it began with a 200 ({@code event: error} with a
 *     {@code rate_limit_error}, no headers possible); new calls are decided as usual, and the
 *     streams of a dialect that has no such error run to their end. {@code overloaded} wins over it
 */
public record Faults(
    boolean errors, double latencyFactor, boolean overloaded, boolean rateLimitedMidStream) {

  /** No fault. */
  public static final Faults NONE = new Faults(false, 1, false, false);

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

  /** The {@code errors}, {@code latencyFactor} and {@code overloaded} faults, streams not cut. */
  public Faults(boolean errors, double latencyFactor, boolean overloaded) {
    this(errors, latencyFactor, overloaded, false);
  }

  /** The {@code errors} and {@code latencyFactor} faults, the provider not overloaded. */
  public Faults(boolean errors, double latencyFactor) {
    this(errors, latencyFactor, false, false);
  }
}
