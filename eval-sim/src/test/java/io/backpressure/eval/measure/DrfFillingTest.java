package io.backpressure.eval.measure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import org.junit.jupiter.api.Test;

class DrfFillingTest {
  private static final double INF = Double.POSITIVE_INFINITY;

  @Test
  void oneDimensionIsWeightedFairQueuing() {
    // cross-priority: six queues with weights w_t·ω_k = 0.5, 0.5, 0.3, 0.3, 0.2, 0.2 share 60
    // req/s.
    List<DrfFilling.Queue> queues =
        List.of(q(0.5, 1), q(0.5, 1), q(0.3, 1), q(0.3, 1), q(0.2, 1), q(0.2, 1));
    double[] rates = DrfFilling.allocate(new double[] {60}, queues);
    assertThat(rates).containsExactly(new double[] {15, 15, 9, 9, 6, 6}, within(1e-9));
  }

  @Test
  void demandCapsGiveTheRestToTheOthers() {
    // A can use only 10 of its 30: B (same weight) takes the remaining 50.
    double[] rates =
        DrfFilling.allocate(
            new double[] {60}, List.of(new DrfFilling.Queue(1, new double[] {1}, 10), q(1, 1)));
    assertThat(rates).containsExactly(new double[] {10, 50}, within(1e-9));
  }

  @Test
  void cappedQueuesBelowTheirShareKeepTheirDemandAndNothingOverflows() {
    // Demand 5 + 7 is below the cap: both get their demand, capacity idles.
    double[] rates =
        DrfFilling.allocate(
            new double[] {60},
            List.of(
                new DrfFilling.Queue(1, new double[] {1}, 5),
                new DrfFilling.Queue(3, new double[] {1}, 7)));
    assertThat(rates).containsExactly(new double[] {5, 7}, within(1e-9));
  }

  @Test
  void dominantResourcesDifferTokensBindFirst() {
    // The class javadoc's example: heavy 850 tokens/call, two light 130 tokens/call, equal weights.
    double[] caps = {60, 12000};
    double[] rates =
        DrfFilling.allocate(
            caps,
            List.of(
                new DrfFilling.Queue(1, new double[] {1, 850}, INF),
                new DrfFilling.Queue(1, new double[] {1, 130}, INF),
                new DrfFilling.Queue(1, new double[] {1, 130}, INF)));
    double level = 12000.0 / 27600.0;
    assertThat(rates[0]).isCloseTo(level * 12000 / 850, within(1e-9));
    assertThat(rates[1]).isCloseTo(level * 60, within(1e-9));
    assertThat(rates[2]).isCloseTo(rates[1], within(1e-12));
    // Equal dominant shares, tokens exhausted, requests not.
    assertThat(rates[0] * 850 / 12000).isCloseTo(rates[1] / 60, within(1e-12));
    assertThat(rates[0] * 850 + 2 * rates[1] * 130).isCloseTo(12000, within(1e-6));
    assertThat(rates[0] + 2 * rates[1]).isLessThan(60);
  }

  @Test
  void aDemandCappedHeavyQueueLetsTheLightOnesFillRequests() {
    // Heavy capped at 2 calls/s (1 700 tokens/s): lights share the rest until requests run out at
    // 29 each.
    double[] rates =
        DrfFilling.allocate(
            new double[] {60, 12000},
            List.of(
                new DrfFilling.Queue(1, new double[] {1, 850}, 2),
                new DrfFilling.Queue(1, new double[] {1, 130}, INF),
                new DrfFilling.Queue(1, new double[] {1, 130}, INF)));
    assertThat(rates).containsExactly(new double[] {2, 29, 29}, within(1e-9));
  }

  @Test
  void weightsScaleDominantShares() {
    // Token-only queues, weights 1 and 3: 3000 and 9000 tokens/s of 400-token calls.
    double[] rates = DrfFilling.allocate(new double[] {12000}, List.of(q(1, 400), q(3, 400)));
    assertThat(rates).containsExactly(new double[] {7.5, 22.5}, within(1e-9));
  }

  @Test
  void badInputIsRejectedWithTheField() {
    assertThatThrownBy(() -> DrfFilling.allocate(new double[] {0}, List.of(q(1, 1))))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("capacity[0]");
    assertThatThrownBy(() -> DrfFilling.allocate(new double[] {60}, List.of(q(0, 1))))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("weight > 0");
    assertThatThrownBy(() -> DrfFilling.allocate(new double[] {60}, List.of(q(1, 0))))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("costs nothing");
  }

  private static DrfFilling.Queue q(double weight, double cost) {
    return new DrfFilling.Queue(weight, new double[] {cost}, INF);
  }
}
