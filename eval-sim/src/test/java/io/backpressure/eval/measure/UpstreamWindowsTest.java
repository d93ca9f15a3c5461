package io.backpressure.eval.measure;

import static org.assertj.core.api.Assertions.assertThat;

import io.backpressure.eval.sim.GateConfiguration;
import io.backpressure.eval.workload.Workload;
import io.backpressure.eval.workload.Workloads;
import io.backpressure.mock.RequestRecord;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class UpstreamWindowsTest {
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
    Map<String, Double> max = UpstreamWindows.maxPerWindow(MetricsTest.TINY, records);
    assertThat(max).containsEntry("requests", 3.0).containsEntry("tokens", 30.0);
  }

  @Test
  void aRequestExactlyOnePeriodLaterStartsANewWindow() {
    Map<String, Double> max =
        UpstreamWindows.maxPerWindow(
            MetricsTest.TINY, List.of(at(0, 0.0, 200, 5), at(1, 1.0, 200, 5), at(2, 2.0, 200, 5)));
    assertThat(max).containsEntry("requests", 1.0);
  }

  @Test
  void theBoundIsCapPerPeriodPlusTheGateBurst() {
    Workload w = Workloads.load("cross-priority").scaled(4);
    Map<String, Double> bound =
        UpstreamWindows.bound(w, GateConfiguration.policy(w, GateConfiguration.Variant.FULL));
    assertThat(bound).containsOnlyKeys("requests").containsEntry("requests", 30.0);
  }
}
