package io.backpressure.eval.measure;

import io.backpressure.core.Dimension;
import io.backpressure.core.Policy;
import io.backpressure.eval.workload.Workload;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The provider-side check of a run: the most requests (and, where the workload caps tokens, the
 * most charged tokens) that reached the provider within any window of one upstream period, and the
 * bound a gate guarantees for it. A real run reads the mock provider's own per-request records (the
 * real mode's {@code ProviderWindows}), a simulated one its attempts.
 *
 * <p>Every request that reaches the provider is counted, whatever its answer. In a gated
 * configuration a call reaches the provider only after the gate admitted it, so the count is the
 * admitted calls; in the others it is every attempt sent. Windows slide: each starts at a request's
 * arrival, so the maximum does not depend on how windows are aligned.
 */
public final class UpstreamWindows {
  private UpstreamWindows() {}

  /**
   * As {@link #maxPerWindow(Workload, long[], double[])}, from a simulated run's attempts (the
   * workload's own traffic; outside traffic is not recorded): every attempt counts one request, and
   * its tokens when the provider counted it.
   *
   * @param attempts any order
   */
  static Map<String, Double> fromAttempts(Workload workload, List<Recording.Attempt> attempts) {
    List<Recording.Attempt> sorted =
        attempts.stream().sorted((a, b) -> Long.compare(a.startNanos(), b.startNanos())).toList();
    return maxPerWindow(
        workload,
        sorted.stream().mapToLong(Recording.Attempt::startNanos).toArray(),
        sorted.stream().mapToDouble(a -> a.counted() ? a.tokens() : 0).toArray());
  }

  /**
   * Per capped dimension of {@code workload}: the largest amount within any window of {@code
   * period_s}, every request counting one request and its tokens.
   *
   * @param arrivals each request's arrival in nanoseconds, ascending
   * @param tokens each request's counted tokens, in the same order
   */
  public static Map<String, Double> maxPerWindow(
      Workload workload, long[] arrivals, double[] tokens) {
    long period = Math.round(workload.upstream().periodS() * 1e9);
    Map<String, Double> max = new LinkedHashMap<>();
    if (workload.upstream().requestsPerS() != null) {
      max.put(Dimension.REQUESTS, slidingMax(arrivals, new double[arrivals.length], 1, period));
    }
    if (workload.upstream().tokensPerS() != null) {
      max.put(Dimension.TOKENS, slidingMax(arrivals, tokens, 0, period));
    }
    return max;
  }

  /**
   * Per capped dimension: cap × period + the gate's burst ({@code policy}), the most a token bucket
   * with that refill and burst can admit within one period.
   */
  public static Map<String, Double> bound(Workload workload, Policy policy) {
    Map<String, Double> bound = new LinkedHashMap<>();
    double period = workload.upstream().periodS();
    for (var dim : policy.dimensions()) {
      Double cap =
          Dimension.REQUESTS.equals(dim.name())
              ? workload.upstream().requestsPerS()
              : Dimension.TOKENS.equals(dim.name()) ? workload.upstream().tokensPerS() : null;
      if (cap != null) {
        bound.put(dim.name(), cap * period + dim.burst());
      }
    }
    return bound;
  }

  /**
   * The largest sum of {@code amounts[i] + each} over arrivals within one {@code period}; arrivals
   * sorted.
   */
  private static double slidingMax(long[] arrivals, double[] amounts, double each, long period) {
    double best = 0;
    double sum = 0;
    int tail = 0;
    for (int head = 0; head < arrivals.length; head++) {
      sum += amounts[head] + each;
      while (arrivals[tail] <= arrivals[head] - period) {
        sum -= amounts[tail++] + each;
      }
      best = Math.max(best, sum);
    }
    return best;
  }
}
