package io.backpressure.eval.workload;

import java.util.Arrays;

/**
 * The calls a trace gives one tenant, in arrival order: when each arrives (seconds into the run,
 * the tenant's {@code start_s}, slice and speed applied) and its prompt and completion tokens.
 * Immutable; built by {@link WorkloadReader}.
 */
public final class TraceArrivals {
  private final double[] atS;
  private final long[] prompt;
  private final long[] completion;

  /**
   * @param atS arrival times in seconds into the run, non-decreasing
   * @param prompt each call's prompt tokens
   * @param completion each call's completion tokens (before any {@code max_tokens} clamp)
   * @throws IllegalArgumentException when the arrays differ in length or times decrease
   */
  TraceArrivals(double[] atS, long[] prompt, long[] completion) {
    if (atS.length != prompt.length || atS.length != completion.length) {
      throw new IllegalArgumentException("arrival arrays differ in length");
    }
    for (int i = 1; i < atS.length; i++) {
      if (atS[i] < atS[i - 1]) {
        throw new IllegalArgumentException("arrival times decrease at index " + i);
      }
    }
    this.atS = atS.clone();
    this.prompt = prompt.clone();
    this.completion = completion.clone();
  }

  /** The number of calls. */
  public int size() {
    return atS.length;
  }

  /** When call {@code i} arrives, in seconds into the run. */
  public double atS(int i) {
    return atS[i];
  }

  /** Call {@code i}'s prompt tokens. */
  public long prompt(int i) {
    return prompt[i];
  }

  /** Call {@code i}'s completion tokens, before any {@code max_tokens} clamp. */
  public long completion(int i) {
    return completion[i];
  }

  /** The calls arriving in [{@code fromS}, {@code toS}) per second of that span; 0 if empty. */
  public double rate(double fromS, double toS) {
    if (!(toS > fromS)) {
      return 0;
    }
    int from = firstAtOrAfter(fromS);
    int to = firstAtOrAfter(toS);
    return (to - from) / (toS - fromS);
  }

  /** These arrivals with every time multiplied by {@code factor} (time stretched). */
  TraceArrivals stretched(double factor) {
    double[] times = new double[atS.length];
    for (int i = 0; i < times.length; i++) {
      times[i] = atS[i] * factor;
    }
    return new TraceArrivals(times, prompt, completion);
  }

  private int firstAtOrAfter(double s) {
    int lo = 0;
    int hi = atS.length;
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      if (atS[mid] < s) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof TraceArrivals t
        && Arrays.equals(atS, t.atS)
        && Arrays.equals(prompt, t.prompt)
        && Arrays.equals(completion, t.completion);
  }

  @Override
  public int hashCode() {
    return 31 * (31 * Arrays.hashCode(atS) + Arrays.hashCode(prompt)) + Arrays.hashCode(completion);
  }

  @Override
  public String toString() {
    return "TraceArrivals[" + atS.length + " calls]";
  }
}
