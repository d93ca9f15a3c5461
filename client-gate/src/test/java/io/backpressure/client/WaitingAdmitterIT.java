package io.backpressure.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.backpressure.core.Admission;
import io.backpressure.core.AdmissionRequest;
import io.backpressure.core.Cost;
import io.backpressure.core.Gate;
import io.backpressure.core.Grant;
import io.backpressure.core.InMemoryGate;
import io.backpressure.core.Policy;
import io.backpressure.core.feedback.FeedbackPolicy;
import io.backpressure.core.feedback.ProviderSignal;
import io.backpressure.core.testing.RecordingGate;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

/**
 * {@link Admitter#waiting(Duration)} on the wall clock: deferred calls wait on the calling thread
 * with their booking until admitted, and a turn past the budget is refused at once.
 */
class WaitingAdmitterIT {

  private static RecordingGate gate(double requestsPerSecond) {
    return new RecordingGate(
        InMemoryGate.create(
            Policy.builder("openai/gpt-4o")
                .dimension("requests", requestsPerSecond, 1)
                .tokensPerSecond(100_000)
                .priority("P1", 1)
                .build()));
  }

  /** Six calls at 10/s with a burst of one: five of them wait in turn, each keeping its booking. */
  @Test
  void deferredCallsWaitInTurnAndAreAdmitted() {
    RecordingGate gate = gate(10);
    Admitter waiting = Admitter.waiting(Duration.ofSeconds(30));
    long start = System.nanoTime();
    for (int i = 0; i < 6; i++) {
      Grant grant = waiting.admit(gate, AdmissionRequest.of("acme", "P1", Cost.requests(1)));
      waiting.release(gate, grant, Cost.requests(1));
    }
    Duration took = Duration.ofNanos(System.nanoTime() - start);

    // Five waits of about 100 ms each; the upper bound leaves room for a loaded machine.
    assertThat(took).isBetween(Duration.ofMillis(400), Duration.ofSeconds(20));
    assertThat(gate.requests()).hasSizeGreaterThan(6);
    assertThat(gate.requests().stream().filter(r -> r.booking() != null)).isNotEmpty();
    assertThat(gate.outstanding()).isZero();
  }

  /**
   * A turn 10 s away with a 5 s budget: expired at once, without sleeping out the budget (a wait of
   * its 5 s, or of the 10 s turn, would show in the time the refusal took; an admission on a loaded
   * machine takes far less).
   */
  @Test
  void aTurnPastTheBudgetExpiresAtOnce() {
    Gate gate = gate(0.1);
    Admitter waiting = Admitter.waiting(Duration.ofSeconds(5));
    waiting.admit(gate, AdmissionRequest.of("acme", "P1", Cost.requests(1)));

    long start = System.nanoTime();
    assertThatThrownBy(
            () -> waiting.admit(gate, AdmissionRequest.of("acme", "P1", Cost.requests(1))))
        .isInstanceOfSatisfying(
            ExpiredException.class,
            e -> assertThat(e.turnIn()).isGreaterThan(Duration.ofSeconds(5)));
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
  }

  /**
   * A call with a 30 s deadline deferred for its turn (the second of one request per second) asks
   * again with its deadline less at least the time it slept: the gate sees what is left, not the 30
   * s again. Mutation tried: the retry carries the first deadline.
   */
  @Test
  void eachRetryCarriesWhatIsLeftOfTheDeadline() {
    RecordingGate gate = gate(1);
    Admitter waiting = Admitter.waiting(Duration.ofSeconds(30));
    AdmissionRequest call =
        AdmissionRequest.of("acme", "P1", Cost.requests(1)).withDeadline(Duration.ofSeconds(30));
    waiting.release(gate, waiting.admit(gate, call), Cost.requests(1));
    int first = gate.requests().size();

    waiting.release(gate, waiting.admit(gate, call), Cost.requests(1));

    List<AdmissionRequest> asked = gate.requests();
    List<Admission> answers = gate.admissions();
    int last = asked.size() - 1;
    assertThat(last).isGreaterThan(first);
    assertThat(asked.get(first).deadline()).isLessThanOrEqualTo(Duration.ofSeconds(30));
    assertThat(answers.get(last)).isInstanceOf(Admission.Admitted.class);
    assertThat(answers.get(last - 1))
        .isInstanceOfSatisfying(
            Admission.Deferred.class,
            deferred ->
                assertThat(asked.get(last).deadline())
                    .isLessThanOrEqualTo(
                        asked
                            .get(last - 1)
                            .deadline()
                            .minusMillis(deferred.retryAfter().toMillis())));
  }

  /** An interrupt ends the wait with the deferral it was waiting out, booking included. */
  @Test
  void anInterruptEndsTheWaitWithItsDeferral() {
    Gate gate = gate(0.1);
    Admitter waiting = Admitter.waiting(Duration.ofMinutes(1));
    waiting.admit(gate, AdmissionRequest.of("acme", "P1", Cost.requests(1)));

    Thread.currentThread().interrupt();
    try {
      assertThatThrownBy(
              () -> waiting.admit(gate, AdmissionRequest.of("acme", "P1", Cost.requests(1))))
          .isInstanceOfSatisfying(
              DeferredException.class, e -> assertThat(e.booking()).isNotEmpty());
      assertThat(Thread.currentThread().isInterrupted()).isTrue();
    } finally {
      Thread.interrupted();
    }
  }

  /**
   * One wait budget per call: after a 429 at 700 ms or later of a 5 s budget, the resend asks the
   * gate with what is left of it (at most 4.3 s, in which the 429's 1 s pause ends), so a turn
   * after the call's deadline would be refused at once instead of being waited for with a fresh
   * budget. The first admission carries the whole budget less the time the call took to reach the
   * gate, measured here around it.
   *
   * <p>Mutation tried: every resend given the whole budget again (the resend then carries 5 s).
   */
  @Test
  void aResendAfterA429CarriesOnlyWhatIsLeftOfTheCallsBudget() {
    TimedGate gate = new TimedGate(gate(100));
    GatedCall gated = GatedCall.builder(gate).maxWait(Duration.ofSeconds(5)).build();
    AtomicInteger sent = new AtomicInteger();

    long start = System.nanoTime();
    String reply =
        gated.call(
            GateContext.of("acme", "P1"),
            Cost.requests(1),
            null,
            () -> {
              if (sent.incrementAndGet() == 1) {
                Thread.sleep(700);
                throw new GatedCallTest.RateLimitException();
              }
              return "reply";
            },
            r -> Cost.requests(1));

    assertThat(reply).isEqualTo("reply");
    assertThat(sent).as("calls sent").hasValue(2);
    assertThat(gate.recorded.signals())
        .singleElement()
        .satisfies(s -> assertThat(s.status()).isEqualTo(429));
    List<AdmissionRequest> asked = gate.recorded.requests();
    Duration reachedTheGate = Duration.ofNanos(gate.askedAt.get(0) - start);
    assertThat(asked.get(0).maxWait())
        .as("the first admission's budget, asked %s after the call began", reachedTheGate)
        .isBetween(ms(5_000).minus(reachedTheGate), ms(5_000));
    assertThat(asked.subList(1, asked.size()))
        .as("the resend's admissions")
        .isNotEmpty()
        .allSatisfy(r -> assertThat(r.maxWait()).isLessThanOrEqualTo(ms(4_300)));
    assertThat(gate.recorded.outstanding()).isZero();
  }

  /**
   * A resend whose turn comes after the call's deadline is refused at once: the 429 holds the gate
   * for its 20 s cooldown, far past the call's 300 ms, and the refusal comes long before it ends.
   */
  @Test
  void aResendPastTheCallsDeadlineExpiresAtOnce() {
    RecordingGate gate =
        new RecordingGate(
            InMemoryGate.create(
                Policy.builder("openai/gpt-4o")
                    .dimension("requests", 0.5, 1)
                    .tokensPerSecond(100_000)
                    .priority("P1", 1)
                    .feedback(FeedbackPolicy.builder().cooldown(Duration.ofSeconds(20)).build())
                    .build()));
    GatedCall gated = GatedCall.builder(gate).maxWait(Duration.ofSeconds(30)).build();
    AtomicInteger sent = new AtomicInteger();
    long start = System.nanoTime();

    assertThatThrownBy(
            () ->
                gated.call(
                    GateContext.of("acme", "P1").withMaxWait(ms(300)),
                    Cost.requests(1),
                    null,
                    () -> {
                      sent.incrementAndGet();
                      throw new GatedCallTest.RateLimitException();
                    },
                    r -> Cost.requests(1)))
        .isInstanceOf(ExpiredException.class);

    assertThat(sent).as("calls sent").hasValue(1);
    assertThat(Duration.ofNanos(System.nanoTime() - start))
        .as("refused without waiting out the 20 s pause")
        .isLessThan(ms(10_000));
  }

  /** A gate that notes when (System.nanoTime) each admission was asked, around a recording one. */
  private static final class TimedGate implements Gate {
    final RecordingGate recorded;
    final List<Long> askedAt = new CopyOnWriteArrayList<>();

    TimedGate(RecordingGate recorded) {
      this.recorded = recorded;
    }

    @Override
    public String target() {
      return recorded.target();
    }

    @Override
    public @Nullable Duration sendWithin() {
      return recorded.sendWithin();
    }

    @Override
    public Admission admit(AdmissionRequest request) {
      askedAt.add(System.nanoTime());
      return recorded.admit(request);
    }

    @Override
    public boolean release(Grant grant, Cost actual) {
      return recorded.release(grant, actual);
    }

    @Override
    public void charge(Cost spent) {
      recorded.charge(spent);
    }

    @Override
    public void feedback(@Nullable Grant grant, ProviderSignal signal) {
      recorded.feedback(grant, signal);
    }
  }

  private static Duration ms(long millis) {
    return Duration.ofMillis(millis);
  }
}
