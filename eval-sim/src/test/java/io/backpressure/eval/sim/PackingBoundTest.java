package io.backpressure.eval.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.backpressure.eval.sim.PackingBound.Window;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class PackingBoundTest {
  @ParameterizedTest
  @EnumSource(Window.class)
  void callsOfHalfTheWindowFillIt(Window window) {
    assertThat(PackingBound.use(window, 1000, 1000, 1, () -> 500)).isCloseTo(1.0, within(1e-9));
  }

  @ParameterizedTest
  @EnumSource(Window.class)
  void callsOfThreeFifthsLeaveTwoFifthsOfEveryWindow(Window window) {
    assertThat(PackingBound.use(window, 1000, 1000, 4, () -> 600)).isCloseTo(0.6, within(1e-9));
  }

  @Test
  void twoSizesThatPairUpFillTheWindowOnlyWhenTheSenderMayChoose() {
    // 600, 600, 600, 400, 400, 400, ...: in arrival order the windows hold 600, 600, 600 + 400,
    // 400 + 400, so 3 000 in four windows; choosing among two pairs each 600 with a 400.
    long[] sizes = {600, 600, 600, 400, 400, 400};
    int[] next = {0};
    double fifo =
        PackingBound.use(Window.FIXED, 1000, 4000, 1, () -> sizes[next[0]++ % sizes.length]);
    next[0] = 0;
    double chosen =
        PackingBound.use(Window.FIXED, 1000, 4000, 2, () -> sizes[next[0]++ % sizes.length]);
    assertThat(fifo).isCloseTo(0.75, within(1e-3));
    assertThat(chosen).isCloseTo(1.0, within(1e-3));
  }

  @ParameterizedTest
  @EnumSource(Window.class)
  void choosingAmongMoreCallsNeverUsesLessOnTheSameDraws(Window window) {
    for (int lookahead : new int[] {1, 4, 12}) {
      double narrower = useOfLargeCalls(window, lookahead);
      double wider = useOfLargeCalls(window, lookahead * 2);
      assertThat(wider)
          .as("lookahead %d then %d", lookahead, lookahead * 2)
          .isGreaterThanOrEqualTo(narrower - 0.005);
      assertThat(narrower).isBetween(0.5, 1.0);
    }
  }

  @Test
  void badArgumentsAreRefusedNamingThem() {
    assertThatThrownBy(() -> PackingBound.use(Window.FIXED, 0, 10, 1, () -> 1))
        .hasMessageContaining("cap must be > 0");
    assertThatThrownBy(() -> PackingBound.use(Window.FIXED, 10, 0, 1, () -> 1))
        .hasMessageContaining("calls must be >= 1");
    assertThatThrownBy(() -> PackingBound.use(Window.FIXED, 10, 10, 0, () -> 1))
        .hasMessageContaining("lookahead must be >= 1");
    assertThatThrownBy(() -> PackingBound.use(Window.SLIDING, 10, 10, 1, () -> 11))
        .hasMessageContaining("(0, cap = 10.0], got 11");
  }

  private static double useOfLargeCalls(Window window, int lookahead) {
    SplittableRandom random = new SplittableRandom(7);
    return PackingBound.use(window, 12_000, 20_000, lookahead, () -> random.nextLong(2400, 6001));
  }
}
