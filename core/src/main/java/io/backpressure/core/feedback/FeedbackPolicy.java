package io.backpressure.core.feedback;

import io.backpressure.core.InvalidPolicyException;
import java.time.Duration;

/**
 * How a gate learns from the provider's answers: the {@code feedback:} block of a policy. Every
 * value is range-checked when built; a bad one throws {@link InvalidPolicyException} naming the
 * field and its range. {@link io.backpressure.core.spi.EffectiveCaps} explains what each one does.
 *
 * <pre>{@code
 * feedback:
 *   enabled: true
 *   period: 60s          # the provider's accounting period, for limit and remaining headers
 *   decrease: 0.8        # on a 429, E_d becomes E_d × decrease
 *   increase: 0.05       # when quiet, E_d grows by increase × C_d per second
 *   floor: 0.05          # E_d never falls below floor × C_d
 *   headroom: 0.05       # kept free below an adopted limit and beside outside traffic
 *   cooldown: 1s         # after a 429 with no reset or retry-after
 *   outside_weight: 0.1  # how fast the outside-traffic estimate follows the headers
 *   ramp: {fraction: 0.5, duration: 1s}     # recovery: from half of E_d back to E_d within 1 s; fraction 1 turns it off
 *   outage_errors: 5     # provider errors in a row that make an outage (then the ramp on return)
 * }</pre>
 *
 * <p>A value, safe to read from any thread.
 *
 * @param enabled false for caps exactly as configured (no learning; signals are ignored)
 * @param period the provider's accounting period: a {@code limit} header of {@code L} means {@code
 *     L / period} units per second (OpenAI and Anthropic count per minute)
 * @param decrease the multiplicative decrease on a 429, in (0, 1)
 * @param increase the additive increase while quiet, as a fraction of {@code C_d} per second, in
 *     (0, 1]
 * @param floor the lowest effective cap, as a fraction of {@code C_d}, in (0, 1]
 * @param headroom the fraction left unused below an adopted limit and on top of the outside-traffic
 *     estimate, in [0, 0.5]
 * @param cooldown how long a 429 without reset or retry-after holds the cap down, in (0, 10 min]
 * @param outsideWeight the weight of one full-period observation in the outside-traffic average, in
 *     (0, 1]
 * @param rampFraction where the recovery ramp starts, as a fraction of {@code E_d}, in (0, 1]
 * @param rampDuration how long the ramp takes to reach {@code E_d}, in (0, 1 h]
 * @param outageErrors provider errors (5xx, no answer) in a row that count as an outage, in [1,
 *     1000]
 */
public record FeedbackPolicy(
    boolean enabled,
    Duration period,
    double decrease,
    double increase,
    double floor,
    double headroom,
    Duration cooldown,
    double outsideWeight,
    double rampFraction,
    Duration rampDuration,
    int outageErrors) {

  /** The defaults: learning on, a one-minute provider period. */
  public static final FeedbackPolicy DEFAULT = builder().build();

  /** No learning: the caps as configured. */
  public static final FeedbackPolicy DISABLED = builder().enabled(false).build();

  public FeedbackPolicy {
    duration("feedback.period", period, Duration.ofMillis(1), Duration.ofDays(1));
    open("feedback.decrease", decrease, 0, 1, false);
    open("feedback.increase", increase, 0, 1, true);
    open("feedback.floor", floor, 0, 1, true);
    if (!(headroom >= 0 && headroom <= 0.5)) {
      throw new InvalidPolicyException(
          "feedback.headroom", "feedback.headroom must be a number in [0, 0.5], got " + headroom);
    }
    duration("feedback.cooldown", cooldown, Duration.ofNanos(1), Duration.ofMinutes(10));
    open("feedback.outside_weight", outsideWeight, 0, 1, true);
    open("feedback.ramp.fraction", rampFraction, 0, 1, true);
    duration("feedback.ramp.duration", rampDuration, Duration.ofNanos(1), Duration.ofHours(1));
    if (outageErrors < 1 || outageErrors > 1000) {
      throw new InvalidPolicyException(
          "feedback.outage_errors",
          "feedback.outage_errors must be in [1, 1000], got " + outageErrors);
    }
  }

  private static void open(
      String field, double value, double low, double high, boolean closedHigh) {
    boolean ok = value > low && (closedHigh ? value <= high : value < high);
    if (!ok) {
      throw new InvalidPolicyException(
          field,
          field
              + " must be a number in ("
              + fmt(low)
              + ", "
              + fmt(high)
              + (closedHigh ? "]" : ")")
              + ", got "
              + value);
    }
  }

  private static void duration(String field, Duration value, Duration low, Duration high) {
    if (value == null || value.compareTo(low) < 0 || value.compareTo(high) > 0) {
      throw new InvalidPolicyException(
          field, field + " must be a duration in [" + low + ", " + high + "], got " + value);
    }
  }

  private static String fmt(double x) {
    return x == Math.rint(x) ? Long.toString((long) x) : Double.toString(x);
  }

  /** A builder with the defaults shown in the class comment. */
  public static Builder builder() {
    return new Builder();
  }

  /** A builder that starts from this policy's values. */
  public Builder toBuilder() {
    Builder b = new Builder();
    b.enabled = enabled;
    b.period = period;
    b.decrease = decrease;
    b.increase = increase;
    b.floor = floor;
    b.headroom = headroom;
    b.cooldown = cooldown;
    b.outsideWeight = outsideWeight;
    b.rampFraction = rampFraction;
    b.rampDuration = rampDuration;
    b.outageErrors = outageErrors;
    return b;
  }

  /**
   * Builds a {@link FeedbackPolicy}; ranges are checked by {@link #build()}. Not thread-safe:
   * configure it on one thread, then build.
   */
  public static final class Builder {
    private boolean enabled = true;
    private Duration period = Duration.ofMinutes(1);
    private double decrease = 0.8;
    private double increase = 0.05;
    private double floor = 0.05;
    private double headroom = 0.05;
    private Duration cooldown = Duration.ofSeconds(1);
    private double outsideWeight = 0.1;
    // Half the rate for the first moment after recovery, the full effective cap within 1 s. The
    // gate's buckets already pace a waiting backlog at E_d once their burst is spent; what the ramp
    // takes off is that burst and the rate on top of what the failed-open calls spent in the
    // provider's window. Kept short so that gating is back at 90 % of the cap 0.8 s after
    // recovery (and at the full cap after 1 s), well inside what the fail-open tests require.
    private double rampFraction = 0.5;
    private Duration rampDuration = Duration.ofSeconds(1);
    private int outageErrors = 5;

    private Builder() {}

    public Builder enabled(boolean enabled) {
      this.enabled = enabled;
      return this;
    }

    public Builder period(Duration period) {
      this.period = period;
      return this;
    }

    public Builder decrease(double decrease) {
      this.decrease = decrease;
      return this;
    }

    public Builder increase(double increase) {
      this.increase = increase;
      return this;
    }

    public Builder floor(double floor) {
      this.floor = floor;
      return this;
    }

    public Builder headroom(double headroom) {
      this.headroom = headroom;
      return this;
    }

    public Builder cooldown(Duration cooldown) {
      this.cooldown = cooldown;
      return this;
    }

    public Builder outsideWeight(double weight) {
      this.outsideWeight = weight;
      return this;
    }

    public Builder ramp(double fraction, Duration duration) {
      this.rampFraction = fraction;
      this.rampDuration = duration;
      return this;
    }

    public Builder outageErrors(int errors) {
      this.outageErrors = errors;
      return this;
    }

    public FeedbackPolicy build() {
      return new FeedbackPolicy(
          enabled,
          period,
          decrease,
          increase,
          floor,
          headroom,
          cooldown,
          outsideWeight,
          rampFraction,
          rampDuration,
          outageErrors);
    }
  }
}
