package io.backpressure.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.backpressure.core.feedback.ProviderSignal;
import io.backpressure.core.testing.RecordingGate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

class FailOpenGateTest {
  private static final Policy POLICY =
      Policy.builder("test/model").dimension(Dimension.REQUESTS, 10, 2).priority("P1", 1).build();

  /**
   * Delegates to a real gate, or throws while {@code down} is set, as a client does when its server
   * is gone.
   */
  private static final class FlakyGate implements Gate {
    final InMemoryGate real;
    final AtomicBoolean down = new AtomicBoolean();
    final List<Double> charged = new ArrayList<>();
    int calls;

    FlakyGate(Ticker clock) {
      this.real = InMemoryGate.create(POLICY, clock);
    }

    @Override
    public String target() {
      return real.target();
    }

    @Override
    public Admission admit(AdmissionRequest request) {
      calls++;
      if (down.get()) {
        throw new IllegalStateException("connection refused");
      }
      return real.admit(request);
    }

    @Override
    public boolean release(Grant grant, Cost actual) {
      if (down.get()) {
        throw new IllegalStateException("connection refused");
      }
      return real.release(grant, actual);
    }

    @Override
    public void charge(Cost spent) {
      if (down.get()) {
        throw new IllegalStateException("connection refused");
      }
      charged.add(spent.amount(Dimension.REQUESTS));
      real.charge(spent);
    }
  }

  /**
   * Hangs in {@code admit} until interrupted (while {@code hang} is set; else admits), as a client
   * whose server stopped answering does.
   */
  private static final class HungGate implements Gate {
    final AtomicBoolean hang = new AtomicBoolean(true);
    final CountDownLatch entered = new CountDownLatch(1);
    final CountDownLatch interrupted = new CountDownLatch(1);

    @Override
    public String target() {
      return "test/model";
    }

    @Override
    public Admission admit(AdmissionRequest request) {
      if (!hang.get()) {
        return new Admission.Admitted(
            new Grant("real", request.tenant(), request.priority(), request.cost(), false));
      }
      entered.countDown();
      try {
        new CountDownLatch(1).await();
      } catch (InterruptedException e) {
        interrupted.countDown();
        Thread.currentThread().interrupt();
      }
      throw new IllegalStateException("interrupted");
    }

    @Override
    public boolean release(Grant grant, Cost actual) {
      return true;
    }
  }

  @Test
  void openMode_admitsUngatedWhileDown_probesSparingly_andGatesAgainWhenBack() {
    ManualClock clock = new ManualClock();
    FlakyGate flaky = new FlakyGate(clock);
    FailOpenGate gate =
        FailOpenGate.around(flaky).probeInterval(Duration.ofMillis(500)).clock(clock).build();

    flaky.down.set(true);
    for (int i = 0; i < 100; i++) {
      Admission answer = gate.admit("a", "P1", Cost.requests(1));
      assertThat(answer)
          .isInstanceOfSatisfying(
              Admission.Admitted.class,
              a -> {
                assertThat(a.grant().failedOpen()).isTrue();
                assertThat(gate.release(a.grant(), Cost.requests(1))).isFalse();
              });
    }
    assertThat(gate.failures()).isEqualTo(1);
    assertThat(gate.ungatedDecisions()).isEqualTo(100);
    assertThat(flaky.calls).isEqualTo(1);

    flaky.down.set(false);
    clock.advance(Duration.ofMillis(500));
    assertThat(gate.admit("a", "P1", Cost.requests(1))).isInstanceOf(Admission.Admitted.class);
    assertThat(gate.admit("a", "P1", Cost.requests(1))).isInstanceOf(Admission.Admitted.class);
    assertThat(gate.admit("a", "P1", Cost.requests(1))).isInstanceOf(Admission.Deferred.class);
  }

  @Test
  void openMode_honoursTheProvidersRetryAfterToAnUngatedCall_insteadOfLettingItsRetriesThrough() {
    ManualClock clock = new ManualClock();
    FlakyGate flaky = new FlakyGate(clock);
    FailOpenGate gate = FailOpenGate.around(flaky).clock(clock).build();
    flaky.down.set(true);
    Admission.Admitted refused = (Admission.Admitted) gate.admit("a", "P1", Cost.requests(1));
    gate.feedback(
        refused.grant(), ProviderSignal.rateLimited(Dimension.REQUESTS, Duration.ofMillis(300)));

    assertThat(gate.admit(AdmissionRequest.of("a", "P1", Cost.requests(1)).withBooking("b")))
        .isInstanceOfSatisfying(
            Admission.Deferred.class,
            d -> {
              assertThat(d.retryAfter()).isEqualTo(Duration.ofMillis(300));
              assertThat(d.booking()).isEqualTo("b");
            });
    clock.advance(Duration.ofMillis(200));
    assertThat(gate.admit("a", "P1", Cost.requests(1)))
        .isInstanceOfSatisfying(
            Admission.Deferred.class,
            d -> assertThat(d.retryAfter()).isEqualTo(Duration.ofMillis(100)));
    clock.advance(Duration.ofMillis(100));
    assertThat(gate.admit("a", "P1", Cost.requests(1)))
        .isInstanceOfSatisfying(
            Admission.Admitted.class, a -> assertThat(a.grant().failedOpen()).isTrue());

    // A retry-after beyond the bound holds ungated calls for the bound only; other answers, and a
    // 429 to a gated call, hold nothing.
    gate.feedback(
        refused.grant(), ProviderSignal.rateLimited(Dimension.REQUESTS, Duration.ofHours(24)));
    assertThat(gate.admit("a", "P1", Cost.requests(1)))
        .isInstanceOfSatisfying(
            Admission.Deferred.class,
            d -> assertThat(d.retryAfter()).isEqualTo(FailOpenGate.MAX_PROVIDER_WAIT));
    clock.advance(FailOpenGate.MAX_PROVIDER_WAIT);
    gate.feedback(refused.grant(), ProviderSignal.ofStatus(500));
    gate.feedback(
        new Grant("g1", "a", "P1", Cost.requests(1), false),
        ProviderSignal.rateLimited(Dimension.REQUESTS, Duration.ofSeconds(5)));
    assertThat(gate.admit("a", "P1", Cost.requests(1))).isInstanceOf(Admission.Admitted.class);
  }

  /**
   * A stalled state (Redis under SIGSTOP): during the outage one call at a time waits on the
   * delegate and every other call is decided at once; the stalled call's answer on the state's
   * return ends the outage, so the very next call is gated again — not a probe interval later, with
   * more ungated calls the shared state never sees.
   */
  @Test
  @org.junit.jupiter.api.Timeout(10)
  void openMode_probesOneAtATime_andTheProbesAnswerEndsTheOutage() throws Exception {
    ManualClock clock = new ManualClock();
    FlakyGate flaky = new FlakyGate(clock);
    CountDownLatch entered = new CountDownLatch(1);
    CountDownLatch resume = new CountDownLatch(1);
    AtomicBoolean stalled = new AtomicBoolean();
    Gate stalling =
        new Gate() {
          @Override
          public String target() {
            return flaky.target();
          }

          @Override
          public Admission admit(AdmissionRequest request) {
            if (stalled.get()) {
              entered.countDown();
              try {
                resume.await();
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
            }
            return flaky.admit(request);
          }

          @Override
          public boolean release(Grant grant, Cost actual) {
            return flaky.release(grant, actual);
          }
        };
    FailOpenGate gate =
        FailOpenGate.around(stalling).probeInterval(Duration.ofMillis(500)).clock(clock).build();
    flaky.down.set(true);
    assertThat(((Admission.Admitted) gate.admit("a", "P1", Cost.requests(1))).grant().failedOpen())
        .isTrue();
    flaky.down.set(false);
    stalled.set(true);
    clock.advance(Duration.ofMillis(500));

    java.util.concurrent.CompletableFuture<Admission> probe =
        java.util.concurrent.CompletableFuture.supplyAsync(
            () -> gate.admit("a", "P1", Cost.requests(1)));
    entered.await();
    int asked = flaky.calls;
    for (int i = 0; i < 5; i++) {
      assertThat(
              ((Admission.Admitted) gate.admit("a", "P1", Cost.requests(1))).grant().failedOpen())
          .as("call %d while the probe waits", i)
          .isTrue();
    }
    assertThat(flaky.calls).as("nobody else asked the stalled state").isEqualTo(asked);

    stalled.set(false);
    resume.countDown();
    assertThat(((Admission.Admitted) probe.get()).grant().failedOpen()).isFalse();
    Admission next = gate.admit("a", "P1", Cost.requests(1));
    assertThat(next)
        .isInstanceOfSatisfying(
            Admission.Admitted.class, a -> assertThat(a.grant().failedOpen()).isFalse());
    assertThat(flaky.calls).as("the probe's call and the next one").isEqualTo(asked + 2);
    assertThat(gate.ungatedDecisions()).isEqualTo(6);
  }

  @Test
  void closedMode_defersWhileDown() {
    ManualClock clock = new ManualClock();
    FlakyGate flaky = new FlakyGate(clock);
    FailOpenGate gate =
        FailOpenGate.around(flaky)
            .mode(FailOpenGate.Mode.CLOSED)
            .closedRetryAfter(Duration.ofSeconds(2))
            .clock(clock)
            .build();
    flaky.down.set(true);
    assertThat(gate.admit("a", "P1", Cost.requests(1)))
        .isInstanceOfSatisfying(
            Admission.Deferred.class,
            d -> assertThat(d.retryAfter()).isEqualTo(Duration.ofSeconds(2)));
  }

  @Test
  void localMode_startsEachOutageEmpty_andRoutesItsReleasesBack() {
    ManualClock clock = new ManualClock();
    FlakyGate flaky = new FlakyGate(clock);
    FailOpenGate gate =
        FailOpenGate.around(flaky)
            .mode(FailOpenGate.Mode.LOCAL)
            .localFallback(POLICY)
            .clock(clock)
            .build();
    flaky.down.set(true);
    // Empty at the start of the outage: the first call waits for one request's worth of refill.
    assertThat(gate.admit("a", "P1", Cost.requests(1)))
        .isInstanceOfSatisfying(
            Admission.Deferred.class,
            d -> assertThat(d.retryAfter()).isEqualTo(Duration.ofMillis(100)));
    clock.advance(Duration.ofMillis(200));
    Admission first = gate.admit("b", "P1", Cost.requests(1));
    assertThat(first).isInstanceOf(Admission.Admitted.class);
    assertThat(gate.release(((Admission.Admitted) first).grant(), Cost.requests(1))).isTrue();
    assertThat(gate.ungatedDecisions()).isEqualTo(2);
  }

  @Test
  void localMode_aDeferredRetryRedeemsItsLocalBooking_insteadOfPayingAgain() {
    ManualClock clock = new ManualClock();
    FlakyGate flaky = new FlakyGate(clock);
    FailOpenGate gate =
        FailOpenGate.around(flaky)
            .mode(FailOpenGate.Mode.LOCAL)
            .localFallback(POLICY)
            .probeInterval(Duration.ofSeconds(60))
            .clock(clock)
            .build();
    flaky.down.set(true);
    AdmissionRequest request = AdmissionRequest.of("a", "P1", Cost.requests(1));
    // Three callers line up on the empty local bucket (only the global cap is empty: the queue is
    // within its share, so they line up behind the light tail, one request's refill apart) and do
    // not all wake at once; each comes back when told, with its booking, and is admitted.
    Admission.Deferred[] waits = new Admission.Deferred[3];
    for (int i = 0; i < 3; i++) {
      waits[i] = (Admission.Deferred) gate.admit(request);
      assertThat(waits[i].retryAfter())
          .as("turn of caller %d", i)
          .isEqualTo(Duration.ofMillis(100L * (i + 1)));
    }
    for (int i = 0; i < 3; i++) {
      clock.advance(Duration.ofMillis(100));
      assertThat(gate.admit(request.withBooking(waits[i].booking())))
          .as("retry %d with its booking", i)
          .isInstanceOf(Admission.Admitted.class);
    }
  }

  @Test
  void localMode_aNewOutageGetsANewGate_andIgnoresTheIdsOfTheLastOne() {
    ManualClock clock = new ManualClock();
    FlakyGate flaky = new FlakyGate(clock);
    FailOpenGate gate =
        FailOpenGate.around(flaky)
            .mode(FailOpenGate.Mode.LOCAL)
            .localFallback(POLICY)
            .probeInterval(Duration.ofMillis(500))
            .clock(clock)
            .build();
    flaky.down.set(true);
    clock.advance(Duration.ofSeconds(1));
    gate.admit("a", "P1", Cost.requests(1));
    clock.advance(Duration.ofMillis(150));
    Grant local = ((Admission.Admitted) gate.admit("a", "P1", Cost.requests(1))).grant();
    Admission.Deferred waiting = (Admission.Deferred) gate.admit("a", "P1", Cost.requests(1));

    flaky.down.set(false);
    clock.advance(Duration.ofMillis(500));
    assertThat(gate.admit("a", "P1", Cost.requests(1))).isInstanceOf(Admission.Admitted.class);
    assertThat(gate.release(local, Cost.requests(1)))
        .as("its outage's gate still releases it")
        .isTrue();

    flaky.down.set(true);
    clock.advance(Duration.ofMillis(500));
    // The second outage's gate starts empty again and does not know the first one's booking.
    assertThat(
            gate.admit(
                AdmissionRequest.of("a", "P1", Cost.requests(1)).withBooking(waiting.booking())))
        .isInstanceOfSatisfying(
            Admission.Deferred.class,
            d -> assertThat(d.booking()).isNotEqualTo(waiting.booking()).startsWith("local2:"));
    assertThat(gate.release(local, Cost.requests(1))).isFalse();
  }

  @Test
  void aDelegatesOwnIdsThatLookLocal_stillGoToTheDelegate() {
    ManualClock clock = new ManualClock();
    Grant[] released = new Grant[1];
    Gate delegate =
        new Gate() {
          @Override
          public String target() {
            return "test/model";
          }

          @Override
          public Admission admit(AdmissionRequest request) {
            return new Admission.Admitted(
                new Grant("locale-7", request.tenant(), request.priority(), request.cost(), false));
          }

          @Override
          public boolean release(Grant grant, Cost actual) {
            released[0] = grant;
            return true;
          }
        };
    FailOpenGate gate =
        FailOpenGate.around(delegate)
            .mode(FailOpenGate.Mode.LOCAL)
            .localFallback(POLICY)
            .clock(clock)
            .build();
    Grant grant = ((Admission.Admitted) gate.admit("a", "P1", Cost.requests(1))).grant();
    assertThat(gate.release(grant, Cost.requests(1))).isTrue();
    assertThat(released[0]).isEqualTo(grant);
  }

  @Test
  void aChargeReachesTheDelegate() {
    ManualClock clock = new ManualClock();
    RecordingGate recording = new RecordingGate(InMemoryGate.create(POLICY, clock));
    FailOpenGate gate = FailOpenGate.around(recording).clock(clock).build();
    gate.charge(Cost.requests(2));
    assertThat(recording.charges())
        .singleElement()
        .satisfies(c -> assertThat(c.amount(Dimension.REQUESTS)).isEqualTo(2));
    assertThat(gate.admit("a", "P1", Cost.requests(1)))
        .as("a full burst of 2 charged 2 is empty")
        .isInstanceOf(Admission.Deferred.class);
  }

  @Test
  void aChargeMadeDuringAnOutage_isHandedBackWithTheFirstAnswer() {
    ManualClock clock = new ManualClock();
    FlakyGate flaky = new FlakyGate(clock);
    FailOpenGate gate =
        FailOpenGate.around(flaky)
            .probeInterval(Duration.ofMillis(100))
            .handBack(Duration.ofSeconds(1))
            .clock(clock)
            .build();
    flaky.down.set(true);
    assertThat(gate.admit("a", "P1", Cost.requests(1))).isInstanceOf(Admission.Admitted.class);
    gate.charge(Cost.requests(2));
    assertThat(flaky.charged).isEmpty();

    flaky.down.set(false);
    clock.advance(Duration.ofMillis(100));
    gate.admit("a", "P1", Cost.requests(1));
    assertThat(flaky.charged)
        .as("one ungated admission and the charge of 2, in one hand-back")
        .containsExactly(3.0);
  }

  @Test
  void timeout_abandonsAHungCall() throws InterruptedException {
    FailOpenGate gate = FailOpenGate.around(new HungGate()).timeout(Duration.ofMillis(50)).build();
    assertThat(gate.admit("a", "P1", Cost.requests(1))).isInstanceOf(Admission.Admitted.class);
    assertThat(gate.failures()).isEqualTo(1);
  }

  @Test
  void badReleaseInputIsTheCallersError_notAnOutage() {
    ManualClock clock = new ManualClock();
    FailOpenGate gate = FailOpenGate.around(new FlakyGate(clock)).clock(clock).build();
    Grant grant = ((Admission.Admitted) gate.admit("a", "P1", Cost.requests(1))).grant();
    assertThatThrownBy(() -> gate.release(grant, Cost.requests(1).with("gpus", 1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("actual.gpus");
    assertThat(gate.failures()).isZero();
  }

  @Test
  void builderRejectsNonsense() {
    ManualClock clock = new ManualClock();
    assertThatThrownBy(
            () -> FailOpenGate.around(new FlakyGate(clock)).mode(FailOpenGate.Mode.LOCAL).build())
        .hasMessageContaining("localFallback");
    assertThatThrownBy(() -> FailOpenGate.around(new FlakyGate(clock)).timeout(Duration.ZERO))
        .hasMessageContaining("timeout");
  }

  @Test
  void openMode_concurrentCallersNeverShareAGrantId() throws Exception {
    ManualClock clock = new ManualClock();
    FlakyGate flaky = new FlakyGate(clock);
    flaky.down.set(true);
    FailOpenGate gate = FailOpenGate.around(flaky).clock(clock).build();
    int threads = 4;
    int perThread = 50_000;
    Set<String> ids = ConcurrentHashMap.newKeySet();
    CountDownLatch start = new CountDownLatch(1);
    ExecutorService callers = Executors.newFixedThreadPool(threads);
    try {
      List<Future<?>> done = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        done.add(
            callers.submit(
                () -> {
                  start.await();
                  for (int i = 0; i < perThread; i++) {
                    ids.add(
                        ((Admission.Admitted) gate.admit("a", "P1", Cost.requests(1)))
                            .grant()
                            .id());
                  }
                  return null;
                }));
      }
      start.countDown();
      for (Future<?> f : done) {
        f.get();
      }
    } finally {
      callers.shutdownNow();
    }
    assertThat(gate.ungatedDecisions()).isEqualTo((long) threads * perThread);
    assertThat(ids).hasSize(threads * perThread);
  }

  @Test
  void close_shutsThePoolDown_interruptingAHungCall_andLaterCallsAreDecidedByTheMode()
      throws InterruptedException {
    HungGate hung = new HungGate();
    ManualClock clock = new ManualClock();
    FailOpenGate gate;
    try (FailOpenGate closing =
        FailOpenGate.around(hung).timeout(Duration.ofDays(1)).clock(clock).build()) {
      gate = closing;
      new Thread(() -> gate.admit("a", "P1", Cost.requests(1))).start();
      hung.entered.await();
    }
    hung.interrupted.await();
    hung.hang.set(false);
    clock.advance(Duration.ofSeconds(1));
    assertThat(gate.admit("a", "P1", Cost.requests(1)))
        .isInstanceOfSatisfying(
            Admission.Admitted.class, a -> assertThat(a.grant().failedOpen()).isTrue());
    gate.close();
  }
}
