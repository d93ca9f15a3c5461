package io.backpressure.eval.sim;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class TimeModelTest {

  @Test
  void backoffIsFullJitterDoublingFromHalfASecondCappedAtEight() {
    assertThat(TimeModel.sdkBackoffNanos(1, 0, 0.5)).isEqualTo(250_000_000L);
    assertThat(TimeModel.sdkBackoffNanos(2, 0, 0.5)).isEqualTo(500_000_000L);
    assertThat(TimeModel.sdkBackoffNanos(5, 0, 0.5)).isEqualTo(4_000_000_000L);
    assertThat(TimeModel.sdkBackoffNanos(6, 0, 0.5)).isEqualTo(4_000_000_000L);
    assertThat(TimeModel.sdkBackoffNanos(60, 0, 0.5)).isEqualTo(4_000_000_000L);
  }

  @Test
  void retryAfterWinsWhenLonger() {
    assertThat(TimeModel.sdkBackoffNanos(1, 900_000_000L, 0.1)).isEqualTo(900_000_000L);
    assertThat(TimeModel.sdkBackoffNanos(1, 10_000_000L, 0.1)).isEqualTo(50_000_000L);
  }

  @Test
  void timersFireFiveToTwentyMillisecondsLate() {
    SplittableRandom random = new SplittableRandom(3);
    for (int i = 0; i < 1000; i++) {
      assertThat(TimeModel.timerLateness(random)).isBetween(5_000_000L, 20_000_000L);
    }
  }
}
