package io.backpressure.eval.real;

import static org.assertj.core.api.Assertions.assertThat;

import io.backpressure.eval.workload.Workload;
import io.backpressure.eval.workload.WorkloadReader;
import io.backpressure.mock.RequestRecord;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ProviderWindowsTest {
  private static final Workload CAPPED =
      WorkloadReader.parse(
          """
      name: capped
      duration_s: 10
      warmup_s: 1
      upstream: {requests_per_s: 10, tokens_per_s: 1000, latency_ms: [100, 100]}
      priorities: {P1: 1}
      worker: {slots: 2}
      tenants:
        - {name: a, priority: P1, workflows: 1, prompt_tokens: 50, completion_tokens: 50}
      """);

  private static RequestRecord at(long seq, double seconds, int status, long tokens) {
    return new RequestRecord(
        seq,
        "t",
        "P1",
        "c" + seq,
        status,
        status == 429 ? "requests" : null,
        0,
        tokens,
        0,
        tokens,
        Math.round(seconds * 1e9),
        Math.round(seconds * 1e9));
  }

  @Test
  void countsEverySentRequestWithinAnySlidingPeriodButNotMalformedOnes() {
    List<RequestRecord> records =
        List.of(
            at(3, 1.95, 200, 10),
            at(0, 0.1, 200, 10),
            at(1, 0.5, 429, 10),
            at(2, 1.05, 200, 10),
            at(4, 1.97, 400, 10),
            at(5, 2.3, 429, 10));
    Map<String, Double> max = ProviderWindows.maxPerWindow(CAPPED, records);
    assertThat(max).containsEntry("requests", 3.0).containsEntry("tokens", 30.0);
  }

  @Test
  void aRequestExactlyOnePeriodLaterStartsANewWindow() {
    Map<String, Double> max =
        ProviderWindows.maxPerWindow(
            CAPPED, List.of(at(0, 0.0, 200, 5), at(1, 1.0, 200, 5), at(2, 2.0, 200, 5)));
    assertThat(max).containsEntry("requests", 1.0);
  }
}
