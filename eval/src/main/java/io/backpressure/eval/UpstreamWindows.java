package io.backpressure.eval;

import io.backpressure.core.Dimension;
import io.backpressure.core.Policy;
import io.backpressure.mock.RequestRecord;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The provider-side check of a real run, from the mock provider's own per-request records: the
 * most requests (and, where the workload caps tokens, the most charged tokens) that reached the
 * provider within any window of one upstream period, and the bound a gate guarantees for it.
 *
 * <p>Every request that reaches the provider is counted, whatever its answer (200 or 429; a 400
 * is a malformed request and is not counted). In a gated configuration a call reaches the
 * provider only after the gate admitted it, so the count is the admitted calls; in the others it
 * is every attempt sent. Windows slide: each starts at a request's arrival, so the maximum does not
 * depend on how windows are aligned.
 */
final class UpstreamWindows {
  private UpstreamWindows() {}

  /**
   * Per capped dimension of {@code workload}: the largest amount within any window of {@code
   * period_s}, in arrival order of {@code records}.
   *
   * @param records the provider's records, any order
   */
  static Map<String, Double> maxPerWindow(Workload workload, List<RequestRecord> records) {
    long period = Math.round(workload.upstream().periodS() * 1e9);
    List<RequestRecord> sent = records.stream().filter(r -> r.status() == 200 || r.status() == 429)
        .sorted((a, b) -> Long.compare(a.arrivalNanos(), b.arrivalNanos())).toList();
    Map<String, Double> max = new LinkedHashMap<>();
    if (workload.upstream().requestsPerS() != null) {
      max.put(Dimension.REQUESTS, slidingMax(sent, period, r -> 1));
    }
    if (workload.upstream().tokensPerS() != null) {
      max.put(Dimension.TOKENS, slidingMax(sent, period, RequestRecord::chargedTokens));
    }
    return max;
  }

  /**
   * Per capped dimension: cap × period + the gate's burst ({@code policy}), the most a token bucket
   * with that refill and burst can admit within one period.
   */
  static Map<String, Double> bound(Workload workload, Policy policy) {
    Map<String, Double> bound = new LinkedHashMap<>();
    double period = workload.upstream().periodS();
    for (var dim : policy.dimensions()) {
      Double cap = Dimension.REQUESTS.equals(dim.name()) ? workload.upstream().requestsPerS()
          : Dimension.TOKENS.equals(dim.name()) ? workload.upstream().tokensPerS() : null;
      if (cap != null) {
        bound.put(dim.name(), cap * period + dim.burst());
      }
    }
    return bound;
  }

  private interface Amount {
    long of(RequestRecord record);
  }

  private static double slidingMax(List<RequestRecord> sorted, long period, Amount amount) {
    long best = 0;
    long sum = 0;
    int tail = 0;
    for (RequestRecord head : sorted) {
      sum += amount.of(head);
      while (sorted.get(tail).arrivalNanos() <= head.arrivalNanos() - period) {
        sum -= amount.of(sorted.get(tail++));
      }
      best = Math.max(best, sum);
    }
    return best;
  }
}
