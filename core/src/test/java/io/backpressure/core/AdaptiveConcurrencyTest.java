package io.backpressure.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.PriorityQueue;
import org.junit.jupiter.api.Test;

/**
 * The AIMD law of {@link Limits.Adaptive} on a virtual clock: its steps one by one, and a closed
 * loop of callers meeting a provider whose latency rises tenfold for 30 s.
 */
class AdaptiveConcurrencyTest {

  private static final Limits.Adaptive LAW = new Limits.Adaptive(4, 64, Duration.ofSeconds(1));

  @Test
  void increaseIsAdditive_onlyWhileHalfTheLimitIsInFlight_upToMax() {
    assertThat(LAW.current(0)).as("no stored limit: min").isEqualTo(4);
    assertThat(LAW.increased(10, 5)).isEqualTo(11);
    assertThat(LAW.increased(10, 4)).as("less than half in flight").isEqualTo(10);
    assertThat(LAW.increased(64, 64)).isEqualTo(64);
    assertThat(LAW.current(100)).as("a stored limit above a lowered max").isEqualTo(64);
    assertThat(LAW.current(2)).as("a stored limit below a raised min").isEqualTo(4);
  }

  @Test
  void decreaseHalves_downToMin_atMostOncePerLatencyTarget() {
    assertThat(LAW.decreased(64)).isEqualTo(32);
    assertThat(LAW.decreased(9)).isEqualTo(4);
    assertThat(LAW.decreased(5)).isEqualTo(4);
    assertThat(LAW.mayDecrease(0, 5_000_000)).as("never decreased").isTrue();
    assertThat(LAW.mayDecrease(5_000_000, 5_999_999)).isFalse();
    assertThat(LAW.mayDecrease(5_000_000, 6_000_000)).isTrue();
  }

  @Test
  void badBoundsAreRefusedNamingTheField() {
    assertThatThrownBy(() -> new Limits.Adaptive(0, 8, Duration.ofSeconds(1)))
        .hasMessageContaining("concurrency.adaptive.min")
        .hasMessageContaining("[1, 1000000]");
    assertThatThrownBy(() -> new Limits.Adaptive(8, 4, Duration.ofSeconds(1)))
        .hasMessageContaining("concurrency.adaptive.max")
        .hasMessageContaining("[adaptive.min = 8, 1000000]");
    assertThatThrownBy(() -> new Limits.Adaptive(1, 4, Duration.ZERO))
        .hasMessageContaining("concurrency.adaptive.latency_target")
        .hasMessageContaining("(0, 24h]");
    assertThatThrownBy(
            () ->
                new Limits.Concurrency(
                    8,
                    Duration.ofSeconds(60),
                    java.util.Map.of(),
                    java.util.Map.of(),
                    null,
                    new Limits.Adaptive(1, 4, Duration.ofSeconds(1))))
        .hasMessageContaining("concurrency.max_in_flight");
  }

  /**
   * 100 callers in a closed loop against a provider answering in 0.2 s, then in 2 s from t = 60 s
   * to t = 90 s, then in 0.2 s again; the latency target is 1 s. The calls in flight must fall to
   * at most a quarter of their level before the spell within 5 s of its start, and be back to at
   * least three quarters of it within 10 s of its end.
   */
  @Test
  void aTenfoldLatencySpell_inFlightFallsWithin5s_andRisesBackWithin10s() {
    ManualClock clock = new ManualClock(1_700_000_000L * 1_000_000_000L);
    long start = clock.nanoTime();
    InMemoryGate gate =
        InMemoryGate.create(
            Policy.builder("test/model")
                .dimension(Dimension.REQUESTS, 100_000, 100_000)
                .priority("P1", 1)
                .adaptiveConcurrency(4, 64, Duration.ofSeconds(1))
                .build(),
            clock);
    record Event(long at, int caller, Grant grant) {}
    PriorityQueue<Event> events = new PriorityQueue<>((x, y) -> Long.compare(x.at(), y.at()));
    for (int i = 0; i < 100; i++) {
      events.add(new Event(start, i, null));
    }
    long second = 1_000_000_000L;
    List<Integer> inFlightPerSecond = new ArrayList<>();
    long nextSample = start + second;
    while (nextSample <= start + 120 * second) {
      Event e = events.poll();
      while (nextSample <= e.at()) {
        inFlightPerSecond.add(gate.inFlight());
        nextSample += second;
      }
      clock.set(e.at());
      if (e.grant() != null) {
        gate.release(e.grant(), Cost.requests(1));
      }
      Admission answer = gate.admit("t" + e.caller() % 10, "P1", Cost.requests(1));
      if (answer instanceof Admission.Admitted admitted) {
        long t = (e.at() - start) / second;
        long latency = t >= 60 && t < 90 ? 2 * second : second / 5;
        events.add(new Event(e.at() + latency, e.caller(), admitted.grant()));
      } else {
        events.add(
            new Event(
                e.at() + ((Admission.Deferred) answer).retryAfter().toNanos(), e.caller(), null));
      }
    }
    // inFlightPerSecond.get(s) is the count at t = s + 1.
    int before = inFlightPerSecond.get(58);
    assertThat(before).as("the limit grew to its max before the spell").isEqualTo(64);
    assertThat(inFlightPerSecond.get(64)).as("in flight at t = 65 s").isLessThanOrEqualTo(16);
    assertThat(inFlightPerSecond.get(98)).as("in flight at t = 99 s").isGreaterThanOrEqualTo(48);
  }
}
