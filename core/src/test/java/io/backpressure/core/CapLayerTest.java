package io.backpressure.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.backpressure.core.spi.DerivedPolicy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;
import net.jqwik.api.constraints.Size;
import org.junit.jupiter.api.Test;

/** {@link CapLayer}: P1 for takes now and at firm slots, and the window's re-dating. */
class CapLayerTest {
  private static final double RATE = 100; // per second
  private static final long PERIOD = 1_000_000; // µs

  private static CapLayer layer(boolean window, double burst) {
    Policy.Builder builder =
        Policy.builder("t").dimension(Dimension.REQUESTS, RATE, burst).priority("P1", 1.0);
    builder.safeWindow(window ? Duration.ofNanos(PERIOD * 1_000) : null);
    CapLayer cap = new CapLayer(1);
    cap.configure(DerivedPolicy.of(builder.build()), 0);
    return cap;
  }

  /**
   * Callers arriving at random times each take their cost at the earliest time the layer gives (now
   * or a firm slot): the takes dated in any interval of length T sum to at most r·T + B, and with
   * the safe window to at most r·P in any period P.
   */
  @Property(tries = 200)
  void takesAtTheGivenTimesRespectTheCap(
      @ForAll @Size(min = 1, max = 300) List<@LongRange(min = 0, max = 20_000) Long> gaps,
      @ForAll @IntRange(min = 1, max = 5) int cost,
      @ForAll boolean window) {
    double burst = window ? RATE : 20;
    CapLayer cap = layer(window, burst);
    SlidingWindow.Entry[] entries = new SlidingWindow.Entry[1];
    double[] amount = {cost};
    double[] none = {0};
    List<long[]> takes = new ArrayList<>();
    long now = 0;
    for (long gap : gaps) {
      now += gap;
      long at = cap.fitsAt(now, amount, none);
      assertThat(at).isGreaterThanOrEqualTo(now);
      cap.take(at, amount, entries);
      takes.add(new long[] {at, cost});
    }
    takes.sort((a, b) -> Long.compare(a[0], b[0]));
    for (int i = 0; i < takes.size(); i++) {
      double sum = 0;
      for (int j = i; j < takes.size(); j++) {
        sum += takes.get(j)[1];
        long span = takes.get(j)[0] - takes.get(i)[0];
        assertThat(sum).isLessThanOrEqualTo(RATE * span / 1e6 + burst + 1e-6);
        if (window && span < PERIOD) {
          assertThat(sum).isLessThanOrEqualTo(RATE * PERIOD / 1e6 + 1e-6);
        }
      }
    }
  }

  @Test
  void aFirmSlotHoldsItsCapacityForItsCaller() {
    CapLayer cap = layer(false, 10);
    double[] ten = {10};
    double[] none = {0};
    SlidingWindow.Entry[] entries = new SlidingWindow.Entry[1];
    cap.take(0, ten, entries);
    long slot = cap.fitsAt(0, ten, none);
    assertThat(slot).isEqualTo(100_000); // 10 units at 100/s
    cap.take(slot, ten, entries);
    // Nothing else fits before the slot's caller has had its capacity.
    assertThat(cap.fitsAt(50_000, new double[] {1}, none)).isGreaterThan(slot);
  }

  @Test
  void aLateCallerIsCountedInTheWindowFromWhenItIsSent() {
    CapLayer cap = layer(true, RATE);
    double[] all = {RATE};
    double[] none = {0};
    SlidingWindow.Entry[] entries = new SlidingWindow.Entry[1];
    cap.take(0, all, entries);
    cap.redate(400_000, all, entries);
    // Sent at 0.4 s, the window's allowance is spent until 1.4 s, not 1 s.
    assertThat(cap.fitsAt(1_000_000, new double[] {1}, none)).isEqualTo(1_400_000);
  }

  @Test
  void roomLeftForOthersDelaysOnlyTheCallerThatLeavesIt() {
    CapLayer cap = layer(false, 10);
    cap.take(0, new double[] {5}, new SlidingWindow.Entry[1]);
    double[] one = {1};
    assertThat(cap.fitsAt(0, one, new double[] {0})).isZero();
    assertThat(cap.fitsAt(0, one, new double[] {4})).isZero();
    assertThat(cap.fitsAt(0, one, new double[] {4.5})).isEqualTo(5_000); // 0.5 units at 100/s
  }
}
