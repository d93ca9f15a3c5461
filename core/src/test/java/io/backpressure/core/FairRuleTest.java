package io.backpressure.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.PriorityQueue;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * {@link FairRule} driven by closed-loop callers on virtual time: each caller sends its next call
 * when its last one is answered, sleeps the deferrals the rule gives (a timer that fires late, as a
 * durable timer does) and comes back with its booking.
 */
class FairRuleTest {
  private static final long TIMER_LATE = 20_000; // µs
  private static final long RUN = 60_000_000; // µs
  private static final long WARM_UP = 5_000_000; // µs

  /** A caller's next step; {@code ahead}: its call's deferrals so far ahead of its queue's turn. */
  private record Step(
      long at, int caller, NestedBuckets.Booking booking, boolean answer, int ahead) {}

  /**
   * Answered calls per caller after the warm-up, the run's deferrals, and the most deferrals one
   * call was given ahead of its queue's turn.
   */
  private record Outcome(long[] answered, long deferrals, int mostAhead) {
    double perSecond(int caller) {
      return answered[caller] / ((RUN - WARM_UP) / 1e6);
    }

    long total() {
      long sum = 0;
      for (long a : answered) {
        sum += a;
      }
      return sum;
    }
  }

  private static Outcome run(Policy policy, String[] tenants, int[] classes) {
    FairRule rule = new FairRule(policy);
    SplittableRandom random = new SplittableRandom(1);
    PriorityQueue<Step> steps = new PriorityQueue<>((a, b) -> Long.compare(a.at, b.at));
    for (int i = 0; i < tenants.length; i++) {
      steps.add(new Step(0, i, new NestedBuckets.Booking(tenants[i], classes[i], 1), false, 0));
    }
    long[] answered = new long[tenants.length];
    long deferrals = 0;
    int mostAhead = 0;
    double[] one = {1};
    while (!steps.isEmpty() && steps.peek().at <= RUN) {
      Step s = steps.poll();
      int i = s.caller;
      if (s.answer) {
        rule.release(s.at, s.booking, one);
        answered[i] += s.at > WARM_UP ? 1 : 0;
        steps.add(
            new Step(s.at, i, new NestedBuckets.Booking(tenants[i], classes[i], 1), false, 0));
        continue;
      }
      long wait = rule.admit(s.at, tenants[i], classes[i], one, null, s.booking, -1);
      if (wait == 0) {
        steps.add(new Step(s.at + 50_000 + random.nextLong(100_000), i, s.booking, true, 0));
      } else {
        deferrals++;
        int ahead = s.ahead + (s.booking.queueStart > s.at ? 1 : 0);
        mostAhead = Math.max(mostAhead, ahead);
        steps.add(new Step(s.at + wait + random.nextLong(TIMER_LATE), i, s.booking, false, ahead));
      }
    }
    return new Outcome(answered, deferrals, mostAhead);
  }

  /** 40 requests/s shared by classes P1 and P2 of the weights given. */
  static Policy twoClasses(double first, double second) {
    return Policy.builder("t")
        .requestsPerSecond(40)
        .priority("P1", first)
        .priority("P2", second)
        .safeWindow(Duration.ofSeconds(1))
        .build();
  }

  /** P8: one call each, tenants of weights 1, 2, 4 and 8 are served in proportion to weight. */
  @Test
  void singleCallTenantsAreServedByWeight() {
    Policy.Builder builder =
        Policy.builder("t")
            .requestsPerSecond(60)
            .priority("P1", 1.0)
            .safeWindow(Duration.ofSeconds(1));
    String[] tenants = new String[64];
    int[] classes = new int[64];
    for (int i = 0; i < 64; i++) {
      tenants[i] = "w" + (1 << (i / 16)) + "-" + i;
      builder.tenantWeight(tenants[i], 1 << (i / 16));
    }
    Outcome outcome = run(builder.build(), tenants, classes);
    // Entitled: 60 calls/s split by weight over a total weight of 240.
    for (int i = 0; i < 64; i++) {
      double entitled = 60.0 * (1 << (i / 16)) / 240;
      assertThat(outcome.perSecond(i)).as(tenants[i]).isBetween(0.8 * entitled, 1.2 * entitled);
    }
    assertThat(outcome.total() / ((RUN - WARM_UP) / 1e6)).isGreaterThan(0.95 * 60);
  }

  /** P2 across classes: two backlogged classes of weights 3 and 1 share the cap 3 : 1. */
  @Test
  void backloggedClassesShareByWeight() {
    Policy policy = twoClasses(0.75, 0.25);
    String[] tenants = new String[40];
    int[] classes = new int[40];
    for (int i = 0; i < 40; i++) {
      tenants[i] = "t" + i;
      classes[i] = i % 2;
    }
    Outcome outcome = run(policy, tenants, classes);
    double first = 0;
    double second = 0;
    for (int i = 0; i < 40; i++) {
      if (classes[i] == 0) {
        first += outcome.perSecond(i);
      } else {
        second += outcome.perSecond(i);
      }
    }
    assertThat(first / second).isBetween(2.5, 3.5);
    assertThat(first + second).isGreaterThan(0.95 * 40);
  }

  /**
   * P2 with classes of unequal size: a queue weighs {@code ω_k · w_t} in the whole target, so two
   * tenants of one class and six of another, all of equal weights, each get an eighth of the cap.
   */
  @Test
  void queuesWeighTheirClassTimesTheirOwnWeight() {
    Policy policy = twoClasses(0.5, 0.5);
    String[] tenants = new String[8];
    int[] classes = new int[8];
    for (int i = 0; i < 8; i++) {
      tenants[i] = "t" + i;
      classes[i] = i < 2 ? 0 : 1;
    }
    Outcome outcome = run(policy, tenants, classes);
    for (int i = 0; i < 8; i++) {
      assertThat(outcome.perSecond(i)).as(tenants[i]).isBetween(0.8 * 5, 1.2 * 5);
    }
  }

  /**
   * P9 ahead of the queue's turn: many closed-loop callers per tenant keep the cap full, so a call
   * ahead of its queue's turn that is woken for when the cap would fill up finds it taken by the
   * others. It is woken so once, then waits for its turn: at most two deferrals before it.
   */
  @Test
  void aCallAheadOfItsQueueTurnIsWokenForTheFillOnce() {
    String[] tenants = new String[102];
    int[] classes = new int[102];
    for (int i = 0; i < tenants.length; i++) {
      tenants[i] = i < 2 ? "light-" + i : "flood";
      classes[i] = i < 2 ? 0 : 1;
    }
    Outcome outcome = run(twoClasses(0.5, 0.5), tenants, classes);
    assertThat(outcome.total()).isGreaterThan(35L * (RUN - WARM_UP) / 1_000_000);
    assertThat(outcome.mostAhead()).isLessThanOrEqualTo(2);
  }

  /** P6: a class far below its share is admitted at once beside a backlogged one. */
  @Test
  void aClassBelowItsShareIsAdmittedAtOnce() {
    Policy policy = twoClasses(0.5, 0.5);
    FairRule rule = new FairRule(policy);
    double[] one = {1};
    long now = 0;
    // P2 floods: it asks for far more than the cap, every millisecond.
    for (; now < 5_000_000; now += 1_000) {
      rule.admit(now, "flood-" + now % 7, 1, one, null, new NestedBuckets.Booking("f", 1, 1), -1);
      if (now % 500_000 == 0) {
        // P1 sends one call every half second: a twentieth of its share.
        NestedBuckets.Booking booking = new NestedBuckets.Booking("light", 0, 1);
        long wait = rule.admit(now, "light", 0, one, null, booking, -1);
        assertThat(wait).as("P1 at %d µs", now).isLessThanOrEqualTo(1_000_000 / 40 + 1_000);
        if (wait > 0) {
          assertThat(rule.admit(now + wait, "light", 0, one, null, booking, -1)).isZero();
        }
      }
    }
  }

  /**
   * P2 with deadlines: two classes of equal weight, both flooding the cap open-loop, the first with
   * callers who give up after 2 s, the second after 5 s. A call that cannot make its deadline is
   * answered {@code Expired} and what it paid on the tags is taken back, so each class still gets
   * its half; were an expired call's payment kept, the class with the shorter deadline would pay
   * for calls that never ran and starve.
   */
  @Test
  void classesWhoseCallsExpireKeepTheirShare() {
    double[] perSecond = answeredWithDeadlines(new FairRule(twoClasses(0.5, 0.5)));
    assertThat(perSecond[0]).as("first class, 2 s deadlines").isBetween(16.0, 24.0);
    assertThat(perSecond[1]).as("second class, 5 s deadlines").isBetween(16.0, 24.0);
  }

  /**
   * The calls answered per second, by class, when two classes flood 40 requests/s open-loop with
   * callers who give up after 2 s (the first class) and 5 s (the second).
   */
  static double[] answeredWithDeadlines(FairRule rule) {
    SplittableRandom random = new SplittableRandom(1);
    record Attempt(long at, long deadline, int caller, NestedBuckets.Booking booking) {}
    PriorityQueue<Attempt> attempts = new PriorityQueue<>((a, b) -> Long.compare(a.at, b.at));
    String[] tenants = {"p1-a", "p1-b", "p2-a", "p2-b"};
    long[] patience = {2_000_000, 2_000_000, 5_000_000, 5_000_000};
    // Each tenant sends 25 calls/s: 100 calls/s against the cap of 40.
    for (int i = 0; i < tenants.length; i++) {
      for (long at = random.nextLong(40_000); at < RUN; at += 40_000) {
        attempts.add(
            new Attempt(at, at + patience[i], i, new NestedBuckets.Booking(tenants[i], i / 2, 1)));
      }
    }
    double[] one = {1};
    double[] answered = new double[2];
    while (!attempts.isEmpty()) {
      Attempt a = attempts.poll();
      long wait =
          rule.admit(
              a.at, tenants[a.caller], a.caller / 2, one, null, a.booking, a.deadline - a.at);
      if (wait == 0) {
        rule.release(a.at, a.booking, one);
        answered[a.caller / 2] += a.at > WARM_UP ? 1 : 0;
      } else if (wait > 0) {
        attempts.add(
            new Attempt(
                a.at + wait + random.nextLong(TIMER_LATE), a.deadline, a.caller, a.booking));
      }
    }
    double seconds = (RUN - WARM_UP) / 1e6;
    return new double[] {answered[0] / seconds, answered[1] / seconds};
  }
}
