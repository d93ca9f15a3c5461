package io.backpressure.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.backpressure.core.spi.DerivedPolicy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.PriorityQueue;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;
import net.jqwik.api.constraints.Size;
import org.jspecify.annotations.Nullable;
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
   * Callers arriving at random times each take their cost now, or hold a firm slot at the time the
   * layer gives and send when the clock reaches it and the window holds it: the sends dated in any
   * interval of length T sum to at most r·T + B, and with the safe window to at most r·P in any
   * period P.
   */
  @Property(tries = 200)
  void sendsRespectTheCap(
      @ForAll @Size(min = 1, max = 300) List<@LongRange(min = 0, max = 20_000) Long> gaps,
      @ForAll @IntRange(min = 1, max = 5) int cost,
      @ForAll boolean window) {
    double burst = window ? RATE : 20;
    CapLayer cap = layer(window, burst);
    SlidingWindow.Entry[] entries = new SlidingWindow.Entry[1];
    double[] amount = {cost};
    double[] none = {0};
    List<Long> sends = new ArrayList<>();
    PriorityQueue<Slot> held = new PriorityQueue<>();
    long now = 0;
    for (long gap : gaps) {
      now += gap;
      sendHeld(cap, held, now, amount, sends);
      long at = cap.fitsAt(now, amount, none);
      assertThat(at).isGreaterThanOrEqualTo(now);
      if (at == now) {
        cap.take(now, amount, entries);
        sends.add(now);
      } else {
        SlidingWindow.Entry[] promised = new SlidingWindow.Entry[1];
        cap.hold(at, amount, amount, promised);
        held.add(new Slot(at, at, promised));
      }
    }
    sendHeld(cap, held, Long.MAX_VALUE, amount, sends);
    for (int i = 0; i < sends.size(); i++) {
      for (int j = i; j < sends.size(); j++) {
        double sum = cost * (j - i + 1.0);
        long span = sends.get(j) - sends.get(i);
        assertThat(sum).isLessThanOrEqualTo(RATE * span / 1e6 + burst + 1e-6);
        if (window && span < PERIOD) {
          assertThat(sum).isLessThanOrEqualTo(RATE * PERIOD / 1e6 + 1e-6);
        }
      }
    }
  }

  /** Sends the held slots due by {@code until}, in time order, each once the window holds it. */
  private static void sendHeld(
      CapLayer cap, PriorityQueue<Slot> held, long until, double[] amount, List<Long> sends) {
    while (!held.isEmpty() && held.peek().at <= until) {
      Slot slot = held.poll();
      long sendable = cap.sendableAt(slot.at, amount);
      if (sendable > slot.at) {
        held.add(new Slot(sendable, slot.promised, slot.entries));
        continue;
      }
      cap.send(slot.at, slot.promised, slot.entries, amount);
      sends.add(slot.at);
    }
  }

  /** A firm slot the property's callers come back at. */
  private record Slot(long at, long promised, SlidingWindow.@Nullable Entry[] entries)
      implements Comparable<Slot> {
    @Override
    public int compareTo(Slot other) {
      return Long.compare(at, other.at);
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
    cap.hold(slot, ten, ten, new SlidingWindow.Entry[1]);
    // Nothing else fits before the slot's caller has had its capacity.
    assertThat(cap.fitsAt(50_000, new double[] {1}, none)).isGreaterThan(slot);
  }

  @Test
  void aFirmSlotsCallIsCountedInTheWindowWhenItIsSent() {
    CapLayer cap = layer(true, RATE);
    double[] all = {RATE};
    SlidingWindow.Entry[] entries = new SlidingWindow.Entry[1];
    cap.hold(0, all, all, entries);
    assertThat(cap.sendableAt(400_000, all)).isEqualTo(400_000);
    cap.send(400_000, 0, entries, all);
    // Sent at 0.4 s, the window's allowance is spent until 1.4 s.
    assertThat(cap.sendableAt(1_000_000, new double[] {1})).isEqualTo(1_400_000);
  }

  @Test
  void aHeldSlotKeepsItsRoomInTheWindowUntilItIsSent() {
    CapLayer cap = layer(true, 2 * RATE);
    double[] half = {RATE / 2};
    double[] none = {0};
    SlidingWindow.Entry[] entries = new SlidingWindow.Entry[1];
    cap.take(0, half, entries);
    SlidingWindow.Entry[] promised = new SlidingWindow.Entry[1];
    cap.hold(200_000, half, half, promised);
    // The bucket has room, but the window's other half belongs to the held slot.
    assertThat(cap.fitsAt(100_000, new double[] {1}, none)).isEqualTo(PERIOD);
    cap.send(200_000, 200_000, promised, half);
    assertThat(cap.fitsAt(300_000, new double[] {1}, none)).isEqualTo(PERIOD);
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

  /**
   * Reservation mode under a backlog: forty calls, each debited 20 (its reservation) and expected
   * to use 10, ask for their firm slots at once, come back at them and are released 90 ms after
   * their send at 10, within the 100 ms flight the layer learned. The window plans each held slot
   * at its debit while its call is in flight and at its expected cost after, so the slots are
   * spaced by the expected cost (more than the five a period that planning them at the reservation
   * gives), and every call is sent at its slot: the window holds its debit then.
   */
  @Test
  void heldSlotsAreSpacedByTheExpectedCostAndSentAtTheirSlots() {
    CapLayer cap = layer(true, 100 * RATE); // a bucket deep enough that the window decides
    for (int i = 0; i < 60; i++) {
      SlidingWindow.Entry[] entries = new SlidingWindow.Entry[1];
      cap.take(i * 200_000L, new double[] {1}, entries);
      cap.correct(i * 200_000L + 100_000, new double[] {0}, entries);
    }
    long start = 13 * PERIOD;
    double[] reserve = {20};
    double[] expected = {10};
    PriorityQueue<Slot> events = new PriorityQueue<>();
    List<Long> slots = new ArrayList<>();
    for (int i = 0; i < 40; i++) {
      long slot = cap.fitsAt(start, reserve, new double[] {0});
      SlidingWindow.Entry[] entries = new SlidingWindow.Entry[1];
      cap.hold(slot, reserve, expected, entries);
      events.add(new Slot(slot, slot, entries));
      slots.add(slot);
    }
    int sent = 0;
    while (!events.isEmpty()) {
      Slot event = events.poll();
      if (event.promised() >= 0) {
        assertThat(cap.sendableAt(event.at(), reserve))
            .as("send at %d", event.at())
            .isEqualTo(event.at());
        cap.send(event.at(), event.promised(), event.entries(), reserve);
        events.add(new Slot(event.at() + 90_000, -1, event.entries()));
        sent++;
      } else {
        cap.correct(event.at(), new double[] {-10}, event.entries());
      }
    }
    assertThat(sent).isEqualTo(40);
    long second = slots.stream().filter(t -> t >= start + PERIOD && t < start + 2 * PERIOD).count();
    assertThat(second).as("slots in the second period: %s", slots).isGreaterThanOrEqualTo(7);
  }
}
