package io.backpressure.eval.real;

import io.backpressure.eval.measure.UpstreamWindows;
import io.backpressure.eval.workload.Workload;
import io.backpressure.mock.RequestRecord;
import java.util.List;
import java.util.Map;

/**
 * The provider-side check of a real run ({@link UpstreamWindows}) read from the mock provider's own
 * per-request records. Every request that reached the provider is counted, whatever its answer
 * (200, 429 or 500; a 400 is a malformed request and is not counted), with the tokens the provider
 * charged it. Stateless.
 */
final class ProviderWindows {
  private ProviderWindows() {}

  /**
   * Per capped dimension of {@code workload}: the largest amount within any window of {@code
   * period_s}, in arrival order of {@code records}.
   *
   * @param records the provider's records, any order
   */
  static Map<String, Double> maxPerWindow(Workload workload, List<RequestRecord> records) {
    List<RequestRecord> sent =
        records.stream()
            .filter(r -> r.status() == 200 || r.status() == 429 || r.status() == 500)
            .sorted((a, b) -> Long.compare(a.arrivalNanos(), b.arrivalNanos()))
            .toList();
    return UpstreamWindows.maxPerWindow(
        workload,
        sent.stream().mapToLong(RequestRecord::arrivalNanos).toArray(),
        sent.stream().mapToDouble(RequestRecord::chargedTokens).toArray());
  }
}
