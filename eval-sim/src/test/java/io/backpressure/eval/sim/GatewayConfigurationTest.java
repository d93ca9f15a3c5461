package io.backpressure.eval.sim;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class GatewayConfigurationTest {
  private static final long WINDOW = 60_000_000_000L;

  @Test
  void aSliceHoldsItsRequestsPerWindowAndRefillsAtTheNextOne() {
    GatewayConfiguration.Slices slices =
        new GatewayConfiguration.Slices(
            new double[] {2, 1}, new double[] {Double.POSITIVE_INFINITY, Double.POSITIVE_INFINITY});
    assertThat(slices.tryTake(0, 1)).isTrue();
    assertThat(slices.tryTake(0, 2)).isTrue();
    assertThat(slices.tryTake(0, 3)).isFalse();
    assertThat(slices.tryTake(1, 3)).isTrue();
    assertThat(GatewayConfiguration.Slices.untilNextWindow(3)).isEqualTo(WINDOW - 3);
    assertThat(slices.tryTake(0, WINDOW)).isTrue();
  }

  @Test
  void tokensChargedAfterTheReplyCloseTheSliceOnceAtTheLimit() {
    GatewayConfiguration.Slices slices =
        new GatewayConfiguration.Slices(new double[] {10}, new double[] {100});
    assertThat(slices.tryTake(0, 0)).isTrue();
    slices.charge(0, 99, 1);
    assertThat(slices.tryTake(0, 2)).isTrue();
    slices.charge(0, 1, 3);
    assertThat(slices.tryTake(0, 4)).isFalse();
  }

  @Test
  void anInstantBeforeTheOriginBelongsToTheWindowBeforeIt() {
    // floorDiv: −1 ns is in window −1, which ends at the origin (integer division would say window
    // 0).
    assertThat(GatewayConfiguration.Slices.untilNextWindow(-1)).isEqualTo(1);
    GatewayConfiguration.Slices slices =
        new GatewayConfiguration.Slices(new double[] {1}, new double[] {Double.POSITIVE_INFINITY});
    assertThat(slices.tryTake(0, -1)).isTrue();
    assertThat(slices.tryTake(0, 0)).isTrue();
  }
}
