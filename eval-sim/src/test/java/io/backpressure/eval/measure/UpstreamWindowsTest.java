package io.backpressure.eval.measure;

import static org.assertj.core.api.Assertions.assertThat;

import io.backpressure.eval.sim.GateConfiguration;
import io.backpressure.eval.workload.Workload;
import io.backpressure.eval.workload.Workloads;
import java.util.Map;
import org.junit.jupiter.api.Test;

class UpstreamWindowsTest {
  private static final long MS = 1_000_000L;

  @Test
  void eachDimensionTakesItsOwnBusiestWindowAndOnePeriodLaterIsANewWindow() {
    // TINY's period is 1 s: the request at 999 ms has left the window of the one at 1 999 ms.
    Map<String, Double> max =
        UpstreamWindows.maxPerWindow(
            MetricsTest.TINY,
            new long[] {0, 500 * MS, 999 * MS, 1_999 * MS},
            new double[] {10, 20, 30, 100});
    assertThat(max).containsEntry("requests", 3.0).containsEntry("tokens", 100.0);
  }

  @Test
  void theBoundIsCapPerPeriodPlusTheGateBurst() {
    Workload w = Workloads.load("cross-priority").scaled(4);
    Map<String, Double> bound =
        UpstreamWindows.bound(w, GateConfiguration.policy(w, GateConfiguration.Variant.FULL));
    assertThat(bound).containsOnlyKeys("requests").containsEntry("requests", 30.0);
  }
}
