package io.backpressure.eval.workload;

import java.util.SplittableRandom;

/**
 * A per-call token count of a workload: a constant, uniform over the integers {@code [lo, hi]}, or
 * the counts a trace observed. Counts are whole tokens, never negative.
 */
public sealed interface TokenCount
    permits TokenCount.Fixed, TokenCount.Uniform, TokenCount.Observed {

  /** Draws one count. A {@link Fixed} count draws nothing from {@code random}. */
  long sample(SplittableRandom random);

  /** The smallest count this can produce. */
  long min();

  /** The largest count this can produce. */
  long max();

  /**
   * The exact mean of {@code min(count, cap)}, or of the count itself when {@code cap} is null: the
   * mean completion after a {@code max_tokens} clamp.
   */
  double meanClampedAt(Long cap);

  /** The exact mean. */
  default double mean() {
    return meanClampedAt(null);
  }

  /** Always {@code tokens}. */
  record Fixed(long tokens) implements TokenCount {
    public Fixed {
      if (tokens < 0) {
        throw new IllegalArgumentException("a token count must be >= 0, got " + tokens);
      }
    }

    @Override
    public long sample(SplittableRandom random) {
      return tokens;
    }

    @Override
    public long min() {
      return tokens;
    }

    @Override
    public long max() {
      return tokens;
    }

    @Override
    public double meanClampedAt(Long cap) {
      return cap == null ? tokens : Math.min(tokens, cap);
    }
  }

  /** Uniform over the integers {@code lo..hi}, both included. */
  record Uniform(long lo, long hi) implements TokenCount {
    public Uniform {
      if (lo < 0 || hi < lo) {
        throw new IllegalArgumentException(
            "uniform bounds must satisfy 0 <= lo <= hi, got [" + lo + ", " + hi + "]");
      }
    }

    @Override
    public long sample(SplittableRandom random) {
      return lo + random.nextLong(hi - lo + 1);
    }

    @Override
    public long min() {
      return lo;
    }

    @Override
    public long max() {
      return hi;
    }

    /**
     * Values {@code lo..min(cap,hi)} count as themselves, the rest as {@code cap}; the sum of the
     * first run is an arithmetic series, so the mean is exact for any width.
     */
    @Override
    public double meanClampedAt(Long cap) {
      double n = hi - lo + 1;
      if (cap == null || cap >= hi) {
        return (lo + hi) / 2.0;
      }
      if (cap <= lo) {
        return cap;
      }
      double below = cap - lo + 1;
      double sumBelow = (lo + (double) cap) * below / 2.0;
      return (sumBelow + (n - below) * cap) / n;
    }
  }

  /**
   * The counts of a trace's calls (a tenant replaying a trace takes each call's count from its row;
   * this gives the gate's estimates and the entitlements their mean and bounds). A draw picks one
   * of the observed counts uniformly.
   */
  final class Observed implements TokenCount {
    private final long[] sorted;
    private final double[] prefixSums;

    /**
     * @param counts at least one count, each >= 0
     * @throws IllegalArgumentException on an empty array or a negative count
     */
    public Observed(long[] counts) {
      if (counts.length == 0) {
        throw new IllegalArgumentException("observed counts must not be empty");
      }
      sorted = counts.clone();
      java.util.Arrays.sort(sorted);
      if (sorted[0] < 0) {
        throw new IllegalArgumentException("a token count must be >= 0, got " + sorted[0]);
      }
      prefixSums = new double[sorted.length + 1];
      for (int i = 0; i < sorted.length; i++) {
        prefixSums[i + 1] = prefixSums[i] + sorted[i];
      }
    }

    @Override
    public long sample(SplittableRandom random) {
      return sorted[random.nextInt(sorted.length)];
    }

    @Override
    public long min() {
      return sorted[0];
    }

    @Override
    public long max() {
      return sorted[sorted.length - 1];
    }

    /** Counts up to {@code cap} count as themselves, the rest as {@code cap}. */
    @Override
    public double meanClampedAt(Long cap) {
      int n = sorted.length;
      if (cap == null || cap >= sorted[n - 1]) {
        return prefixSums[n] / n;
      }
      int below = 0;
      while (below < n && sorted[below] <= cap) {
        below++;
      }
      return (prefixSums[below] + (double) (n - below) * cap) / n;
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Observed other && java.util.Arrays.equals(sorted, other.sorted);
    }

    @Override
    public int hashCode() {
      return java.util.Arrays.hashCode(sorted);
    }

    @Override
    public String toString() {
      return "Observed[" + sorted.length + " counts, " + min() + ".." + max() + "]";
    }
  }
}
