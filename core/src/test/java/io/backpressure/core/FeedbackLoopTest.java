package io.backpressure.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.backpressure.core.feedback.FeedbackPolicy;
import io.backpressure.core.feedback.ProviderSignal;
import java.time.Duration;
import java.util.PriorityQueue;
import java.util.Random;
import java.util.function.DoubleUnaryOperator;
import org.junit.jupiter.api.Test;

/**
 * The whole loop in virtual time: closed-loop callers behind the in-memory gate, a provider with a
 * fixed one-second window that answers 429 past its true limit and sends OpenAI's headers on every
 * answer, and every answer reported back with {@link Gate#feedback}. The gate is configured for 60
 * requests/s; what the provider really allows differs (outside traffic is spread evenly over each
 * window and never refused, so without feedback the gate can take more than its share). Each case
 * prints its figures.
 */
class FeedbackLoopTest {
  private static final double CONFIGURED = 60;
  private static final double SECONDS = 100;
  private static final double WARMUP = 5;

  /** Caps configured 30 % above the provider's: 46 of the 60 configured. */
  @Test
  void capsConfiguredTooHigh() {
    Result bp = run(true, t -> 46, t -> 0);
    Result fixed = run(false, t -> 46, t -> 0);
    print("configured 30% above", bp, fixed);
    assertThat(bp.share429()).isLessThanOrEqualTo(0.03);
    assertThat(bp.utilization()).isGreaterThanOrEqualTo(0.90);
    assertThat(fixed.share429()).isGreaterThan(0.10);
  }

  /** Another application spends 18 of the provider's 60 per second, unseen by the gate. */
  @Test
  void outsideTrafficOnTheSameCap() {
    Result bp = run(true, t -> 60, t -> 18);
    Result fixed = run(false, t -> 60, t -> 18);
    print("30% outside traffic", bp, fixed);
    assertThat(bp.share429()).isLessThanOrEqualTo(0.03);
    assertThat(bp.utilization()).isGreaterThanOrEqualTo(0.90);
    assertThat(fixed.share429()).isGreaterThan(0.10);
  }

  /** The provider halves its limit from 30 s to 60 s of the run. */
  @Test
  void aCapHalvedAndRestored() {
    DoubleUnaryOperator limit = t -> t >= 30 && t < 60 ? 30 : 60;
    Result bp = run(true, limit, t -> 0);
    Result fixed = run(false, limit, t -> 0);
    print("cap halved 30-60 s", bp, fixed);
    assertThat(bp.share429()).isLessThanOrEqualTo(0.03);
    assertThat(bp.utilization()).isGreaterThanOrEqualTo(0.90);
    assertThat(bp.okBetween(70, 80) / 10)
        .as("full cap within 10-20 s of its return")
        .isGreaterThanOrEqualTo(0.9 * 60);
  }

  /**
   * Caps that are right: feedback stays quiet and costs nothing; the effective cap is the
   * configured one at every answer after the warm-up.
   *
   * <p>Mutation tried: the outside estimate's dead band taken out ({@code OUTSIDE_ENGAGE} and
   * {@code OUTSIDE_RELEASE} at 0.02).
   */
  @Test
  void capsThatAreRightCostNothing() {
    Result bp = run(true, t -> 60, t -> 0);
    Result fixed = run(false, t -> 60, t -> 0);
    print("caps right", bp, fixed);
    assertThat(bp.utilization()).isGreaterThanOrEqualTo(fixed.utilization() - 0.01);
    assertThat(bp.share429()).isLessThanOrEqualTo(fixed.share429() + 0.005);
    assertThat(bp.lowestEffective())
        .as("lowest effective cap after the warm-up")
        .isEqualTo(CONFIGURED);
  }

  /** Outcome of one run: answers counted after the warm-up. */
  record Result(long ok, long limited, double allowed, long[] okPerSecond, double lowestEffective) {
    double share429() {
      return (double) limited / (ok + limited);
    }

    double utilization() {
      return ok / allowed;
    }

    double okBetween(int from, int to) {
      long sum = 0;
      for (int s = from; s < to; s++) {
        sum += okPerSecond[s];
      }
      return sum;
    }
  }

  private static void print(String name, Result bp, Result fixed) {
    System.out.printf(
        "%-22s bp: 429 share %.2f %%, %.1f %% of the true cap used; bp-static: 429 share %.2f %%,"
            + " %.1f %% used%n",
        name,
        100 * bp.share429(),
        100 * bp.utilization(),
        100 * fixed.share429(),
        100 * fixed.utilization());
  }

  private record Event(
      long nanos, int caller, boolean answer, Grant grant, ProviderSignal signal, String booking)
      implements Comparable<Event> {
    @Override
    public int compareTo(Event o) {
      return Long.compare(nanos, o.nanos);
    }
  }

  /**
   * 16 callers, 50-150 ms of service; the provider's limit per one-second window and its outside
   * traffic (spread evenly) as functions of time in seconds. The gate keeps a one-second safe
   * window, as the evaluation configures it against a provider's fixed window.
   */
  private static Result run(
      boolean feedback, DoubleUnaryOperator limitAt, DoubleUnaryOperator outsideAt) {
    ManualClock clock = new ManualClock();
    Policy policy =
        Policy.builder("openai/gpt-4o")
            .requestsPerSecond(CONFIGURED)
            .priority("P1", 1)
            .safeWindow(Duration.ofSeconds(1))
            .feedback(
                feedback
                    ? FeedbackPolicy.builder().period(Duration.ofSeconds(1)).build()
                    : FeedbackPolicy.DISABLED)
            .build();
    InMemoryGate gate = InMemoryGate.create(policy, clock);
    Random random = new Random(7);
    PriorityQueue<Event> events = new PriorityQueue<>();
    for (int i = 0; i < 16; i++) {
      events.add(new Event(i * 1_000L, i, false, null, null, null));
    }
    long window = -1;
    double counted = 0;
    double outsideCounted = 0;
    long ok = 0;
    long limited = 0;
    long[] okPerSecond = new long[(int) SECONDS + 1];
    double lowestEffective = Double.POSITIVE_INFINITY;
    long end = (long) (SECONDS * 1e9);
    while (!events.isEmpty() && events.peek().nanos() < end) {
      Event e = events.poll();
      clock.set(Math.max(clock.nanoTime(), e.nanos()));
      double t = e.nanos() / 1e9;
      if (e.answer()) {
        gate.release(e.grant(), Cost.requests(1));
        gate.feedback(e.grant(), e.signal().withUsage(Cost.requests(1)));
        if (t >= WARMUP) {
          lowestEffective =
              Math.min(
                  lowestEffective, gate.feedbackState().dimensions().get("requests").effective());
        }
        events.add(new Event(e.nanos(), e.caller(), false, null, null, null));
        continue;
      }
      AdmissionRequest request =
          AdmissionRequest.of("tenant-" + e.caller() % 4, "P1", Cost.requests(1));
      Admission answer =
          gate.admit(e.booking() == null ? request : request.withBooking(e.booking()));
      if (answer instanceof Admission.Deferred d) {
        events.add(
            new Event(
                e.nanos() + d.retryAfter().toNanos(), e.caller(), false, null, null, d.booking()));
        continue;
      }
      Grant grant = ((Admission.Admitted) answer).grant();
      long second = (long) Math.floor(t);
      if (second != window) {
        window = second;
        counted = 0;
        outsideCounted = 0;
      }
      double limit = limitAt.applyAsDouble(t);
      double outsideNow = Math.floor(outsideAt.applyAsDouble(t) * (t - second));
      counted += outsideNow - outsideCounted;
      outsideCounted = outsideNow;
      boolean pass = counted + 1 <= limit;
      if (pass) {
        counted++;
      }
      Duration reset = Duration.ofNanos((second + 1) * 1_000_000_000L - e.nanos());
      ProviderSignal signal =
          (pass ? ProviderSignal.ofStatus(200) : ProviderSignal.rateLimited("requests", reset))
              .withLimit("requests", limit, Math.max(0, limit - counted), reset);
      if (t >= WARMUP) {
        if (pass) {
          ok++;
          okPerSecond[(int) second]++;
        } else {
          limited++;
        }
      }
      long latency = 50_000_000L + (long) (random.nextDouble() * 100_000_000L);
      events.add(new Event(e.nanos() + latency, e.caller(), true, grant, signal, null));
    }
    double allowed = 0;
    for (double t = WARMUP; t < SECONDS; t += 0.001) {
      allowed += 0.001 * (limitAt.applyAsDouble(t) - outsideAt.applyAsDouble(t));
    }
    return new Result(ok, limited, allowed, okPerSecond, lowestEffective);
  }
}
