package io.backpressure.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The hand-back of {@link FailOpenGate}: what a worker admitted without the shared state is charged
 * to it when it answers again, so that the provider windows around the workers' staggered return
 * hold the cap after a state loss. Virtual time; the shared state is an in-memory gate that a test
 * replaces with an empty one to model a restart without persistence.
 */
class FailOpenHandBackTest {
  /** The evaluation's cap: 15 requests/s, burst 15, a safe window of the provider's 1 s period. */
  private static final Policy POLICY =
      Policy.builder("handback/model")
          .dimension(Dimension.REQUESTS, 15, 15)
          .priority("P1", 1)
          .safeWindow(Duration.ofSeconds(1))
          .build();

  /**
   * One of two workers' share in LOCAL: half the cap, the burst kept whole (as ResilientRedisGate
   * slices).
   */
  private static final Policy HALF =
      POLICY.withDimension(new Dimension(Dimension.REQUESTS, 7.5, 15));

  private static final Duration PROBE = Duration.ofMillis(100);
  private static final Duration TICK = Duration.ofMillis(10);

  /**
   * The shared state as every worker's client sees it: reachable or not per worker, replaceable.
   */
  private static final class SharedState {
    InMemoryGate gate;

    SharedState(Ticker clock) {
      this.gate = InMemoryGate.create(POLICY, clock);
    }
  }

  /**
   * One worker's view of the shared state: throws while {@code down}, as a client whose server is
   * gone.
   */
  private static class Link implements Gate {
    final SharedState state;
    final List<Cost> charged = new ArrayList<>();
    boolean down;

    Link(SharedState state) {
      this.state = state;
    }

    @Override
    public String target() {
      return POLICY.target();
    }

    @Override
    public Admission admit(AdmissionRequest request) {
      check();
      return state.gate.admit(request);
    }

    @Override
    public boolean release(Grant grant, Cost actual) {
      check();
      return state.gate.release(grant, actual);
    }

    @Override
    public void charge(Cost spent) {
      check();
      charged.add(spent);
      state.gate.charge(spent);
    }

    private void check() {
      if (down) {
        throw new IllegalStateException("connection refused");
      }
    }
  }

  /**
   * A worker: its fail-open gate and a few callers that call back to back, each retrying when told.
   */
  private static final class Worker {
    final Link link;
    final FailOpenGate gate;
    final long[] nextAt = new long[4];
    final AdmissionRequest[] pending = new AdmissionRequest[4];

    Worker(SharedState state, ManualClock clock, FailOpenGate.Mode mode, Duration handBack) {
      this.link = new Link(state);
      FailOpenGate.Builder builder =
          FailOpenGate.around(link).mode(mode).probeInterval(PROBE).handBack(handBack).clock(clock);
      if (mode == FailOpenGate.Mode.LOCAL) {
        builder.localFallback(HALF);
      }
      this.gate = builder.build();
    }

    /** Lets every caller whose turn has come ask once; records the admissions' times. */
    void step(long now, List<Long> admittedAt) {
      for (int c = 0; c < pending.length; c++) {
        if (nextAt[c] > now) {
          continue;
        }
        AdmissionRequest request =
            pending[c] != null ? pending[c] : AdmissionRequest.of("t" + c, "P1", Cost.requests(1));
        Admission answer = gate.admit(request);
        if (answer instanceof Admission.Admitted a) {
          admittedAt.add(now);
          gate.release(a.grant(), Cost.requests(1));
          pending[c] = null;
          nextAt[c] = now;
        } else if (answer instanceof Admission.Deferred d) {
          pending[c] = request.withBooking(d.booking());
          nextAt[c] = now + d.retryAfter().toNanos();
        } else {
          pending[c] = null;
        }
      }
    }
  }

  /**
   * Two workers gate through the shared state for 2 s, lose it for 2 s (deciding as {@code mode}
   * says), and it comes back empty (restarted without persistence); worker B answers again at 4.0
   * s, worker A 0.35 s later. Returns the most admissions in any 1 s window starting at or after
   * the loss, over 4 s after the return.
   */
  private static int mostInOneSecondAfterTheLoss(FailOpenGate.Mode mode, Duration handBack) {
    ManualClock clock = new ManualClock();
    clock.advance(Duration.ofSeconds(100));
    long origin = clock.nanoTime();
    SharedState state = new SharedState(clock);
    Worker a = new Worker(state, clock, mode, handBack);
    Worker b = new Worker(state, clock, mode, handBack);
    List<Long> admitted = new ArrayList<>();
    long lost = origin + Duration.ofSeconds(2).toNanos();
    long back = origin + Duration.ofSeconds(4).toNanos();
    long aBack = back + Duration.ofMillis(350).toNanos();
    long end = back + Duration.ofSeconds(4).toNanos();
    for (long now = origin; now < end; now = clock.nanoTime()) {
      if (now >= lost && now < back) {
        a.link.down = true;
        b.link.down = true;
      }
      if (now >= back && state.gate.policy().equals(POLICY) && b.link.down) {
        state.gate = InMemoryGate.createEmpty(POLICY, clock);
        b.link.down = false;
      }
      if (now >= aBack) {
        a.link.down = false;
      }
      a.step(now, admitted);
      b.step(now, admitted);
      clock.advance(TICK);
    }
    int most = 0;
    for (long from = lost; from + Duration.ofSeconds(1).toNanos() <= end; from += TICK.toNanos()) {
      long to = from + Duration.ofSeconds(1).toNanos();
      long start = from;
      most = Math.max(most, (int) admitted.stream().filter(t -> t >= start && t < to).count());
    }
    return most;
  }

  @Test
  void localMode_withoutTheHandBack_theStaggeredReturnAdmitsAboveTheCap() {
    assertThat(mostInOneSecondAfterTheLoss(FailOpenGate.Mode.LOCAL, Duration.ofNanos(1)))
        .as("most admitted in one second after the loss, nothing handed back (cap 15)")
        .isGreaterThan(15);
  }

  @Test
  void localMode_handingBackTheLastStagger_holdsTheCapAfterTheLoss() {
    assertThat(mostInOneSecondAfterTheLoss(FailOpenGate.Mode.LOCAL, Duration.ofMillis(450)))
        .as("most admitted in one second after the loss, 0.45 s handed back (cap 15)")
        .isLessThanOrEqualTo(15);
  }

  @Test
  void theHandBackChargesTheStateOnce_withWhatWasAdmittedWithinTheHorizon() {
    ManualClock clock = new ManualClock();
    Link link = new Link(new SharedState(clock));
    FailOpenGate gate =
        FailOpenGate.around(link)
            .probeInterval(PROBE)
            .handBack(Duration.ofMillis(500))
            .clock(clock)
            .build();
    link.down = true;
    for (int i = 0; i < 30; i++) {
      assertThat(gate.admit("t", "P1", Cost.requests(1))).isInstanceOf(Admission.Admitted.class);
      clock.advance(Duration.ofMillis(20));
    }
    link.down = false;
    clock.advance(PROBE);
    assertThat(gate.admit("t", "P1", Cost.requests(1)))
        .as("the probe")
        .isInstanceOf(Admission.Admitted.class);
    gate.admit("t", "P1", Cost.requests(1));
    gate.admit("t", "P1", Cost.requests(1));
    // 30 ungated calls 20 ms apart from 0 to 0.58 s, the state back at 0.7 s: 0.22 … 0.58 s are
    // within the 0.5 s before, 19 calls, charged in one call.
    assertThat(link.charged).containsExactly(Cost.of(Dimension.REQUESTS, 19.0));
  }

  @Test
  void aHandBackThatFails_keepsTheSpendForTheNextAnswer_andTheOutageGoesOn() {
    ManualClock clock = new ManualClock();
    Link link =
        new Link(new SharedState(clock)) {
          int charges;

          @Override
          public void charge(Cost spent) {
            if (charges++ == 0) {
              throw new IllegalStateException("connection reset");
            }
            super.charge(spent);
          }
        };
    FailOpenGate gate =
        FailOpenGate.around(link)
            .probeInterval(PROBE)
            .handBack(Duration.ofSeconds(1))
            .clock(clock)
            .build();
    link.down = true;
    for (int i = 0; i < 5; i++) {
      gate.admit("t", "P1", Cost.requests(1));
    }
    link.down = false;
    clock.advance(PROBE);
    gate.admit("t", "P1", Cost.requests(1));
    assertThat(link.charged).as("the first hand-back failed").isEmpty();
    assertThat(gate.admit("t", "P1", Cost.requests(1)).toString())
        .as("still in the outage: decided by the mode (OPEN) until the next probe")
        .contains("open-");
    clock.advance(PROBE);
    gate.admit("t", "P1", Cost.requests(1));
    assertThat(link.charged)
        .as("the next answer hands back the 5 calls and the one decided in between")
        .containsExactly(Cost.of(Dimension.REQUESTS, 6.0));
  }

  @Test
  void localMode_handsBackWhatTheLocalGateAdmitted() {
    ManualClock clock = new ManualClock();
    Link link = new Link(new SharedState(clock));
    FailOpenGate gate =
        FailOpenGate.around(link)
            .mode(FailOpenGate.Mode.LOCAL)
            .localFallback(HALF)
            .probeInterval(PROBE)
            .handBack(Duration.ofSeconds(1))
            .clock(clock)
            .build();
    link.down = true;
    int local = 0;
    AdmissionRequest request = AdmissionRequest.of("t", "P1", Cost.requests(1));
    for (int i = 0; i < 50; i++) {
      Admission answer = gate.admit(request);
      if (answer instanceof Admission.Admitted) {
        local++;
        request = AdmissionRequest.of("t", "P1", Cost.requests(1));
      } else if (answer instanceof Admission.Deferred d) {
        request = request.withBooking(d.booking());
      }
      clock.advance(Duration.ofMillis(10));
    }
    link.down = false;
    gate.admit("t", "P1", Cost.requests(1));
    assertThat(local).as("admitted by the empty local gate in 0.5 s at 7.5/s").isBetween(3, 4);
    assertThat(link.charged).containsExactly(Cost.of(Dimension.REQUESTS, (double) local));
  }
}
