package io.backpressure.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.backpressure.core.FairRule.Mechanism;
import io.backpressure.core.spi.DerivedPolicy;
import java.time.Duration;
import java.util.EnumSet;
import java.util.PriorityQueue;
import java.util.Set;
import java.util.SplittableRandom;
import org.assertj.core.data.Offset;
import org.junit.jupiter.api.Test;

/**
 * Each of {@link FairRule.Mechanism}'s switches is wired: on a small deterministic scenario, the
 * rule (or its layer) with the mechanism switched off answers otherwise than the whole rule, in the
 * way the mechanism's absence predicts. The evaluation's {@code bp-fq-no-NAME} configurations run
 * the same switches.
 */
class FairRuleMechanismsTest {
  private static final double[] ONE = {1};

  private static Set<Mechanism> without(Mechanism off) {
    Set<Mechanism> on = EnumSet.allOf(Mechanism.class);
    on.remove(off);
    return on;
  }

  /** {@code requests} at {@code rate}/s with burst {@code burst}, classes of the weights given. */
  private static Policy requests(double rate, double burst, double... classWeights) {
    Policy.Builder builder =
        Policy.builder("t")
            .dimension(Dimension.REQUESTS, rate, burst)
            .safeWindow(Duration.ofSeconds(1));
    for (int k = 0; k < classWeights.length; k++) {
      builder.priority("P" + (k + 1), classWeights[k]);
    }
    return builder.build();
  }

  /** One request and up to 1 000 tokens per second, one class. */
  private static Policy requestsAndTokens() {
    return Policy.builder("t")
        .dimension(Dimension.REQUESTS, 10, 10)
        .dimension(Dimension.TOKENS, 1_000, 1_000)
        .priority("P1", 1.0)
        .safeWindow(Duration.ofSeconds(1))
        .build();
  }

  private static long admit(FairRule rule, long now, String tenant, int k) {
    return rule.admit(now, tenant, k, ONE, null, new NestedBuckets.Booking(tenant, k, 1), -1);
  }

  private static double state(FairRule rule, String key) {
    Double value = FairRuleSchema.read(rule).get(key);
    assertThat(value).as(key).isNotNull();
    return value;
  }

  /**
   * Closed-loop callers ({@code tenants[i]} in class {@code classes[i]}) for 30 virtual seconds:
   * each sends its next call when its last is answered (50–150 ms after admission) and comes back
   * when its deferral ends (up to 20 ms late). Answered calls per caller after the first 5 s.
   */
  private static long[] closedLoop(FairRule rule, String[] tenants, int[] classes) {
    record Step(long at, int caller, NestedBuckets.Booking booking, boolean answer) {}
    SplittableRandom random = new SplittableRandom(1);
    PriorityQueue<Step> steps = new PriorityQueue<>((a, b) -> Long.compare(a.at, b.at));
    for (int i = 0; i < tenants.length; i++) {
      steps.add(new Step(0, i, new NestedBuckets.Booking(tenants[i], classes[i], 1), false));
    }
    long[] answered = new long[tenants.length];
    while (!steps.isEmpty() && steps.peek().at <= 30_000_000) {
      Step s = steps.poll();
      int i = s.caller;
      if (s.answer) {
        rule.release(s.at, s.booking, ONE);
        answered[i] += s.at > 5_000_000 ? 1 : 0;
        steps.add(new Step(s.at, i, new NestedBuckets.Booking(tenants[i], classes[i], 1), false));
        continue;
      }
      long wait = rule.admit(s.at, tenants[i], classes[i], ONE, null, s.booking, -1);
      long next = wait == 0 ? 50_000 + random.nextLong(100_000) : wait + random.nextLong(20_000);
      steps.add(new Step(s.at + next, i, s.booking, wait == 0));
    }
    return answered;
  }

  /**
   * Queue turn: in one class, a tenant with eight callers and one with a single caller share the
   * cap equally; without the queue's turn the eight callers take most of it.
   */
  @Test
  void queueTurnKeepsATenantWithManyCallersToItsShare() {
    String[] tenants = new String[9];
    int[] classes = new int[9];
    for (int i = 0; i < 9; i++) {
      tenants[i] = i == 0 ? "single" : "many";
    }
    Policy policy = requests(10, 10, 1.0);
    double whole = closedLoop(new FairRule(policy), tenants, classes)[0] / 25.0;
    double ablated =
        closedLoop(new FairRule(policy, without(Mechanism.QUEUE_TURN)), tenants, classes)[0] / 25.0;
    assertThat(whole).as("single's calls/s, whole rule").isGreaterThan(0.8 * 5);
    assertThat(ablated).as("single's calls/s without the queue turn").isLessThan(0.6 * 5);
  }

  /**
   * Class turn: with a burst of one request, a second call of class P2 (weight 1 of 4), at its
   * queue's turn while its class has just paid for a call, waits for its class's turn, 400 ms on;
   * without the class's turn it is given the cap's next slot, behind the first call's.
   */
  @Test
  void classTurnDefersACallUntilItsClassIsWithinItsShare() {
    for (boolean turn : new boolean[] {true, false}) {
      FairRule rule =
          new FairRule(
              requests(10, 1, 0.75, 0.25), turn ? FairRule.ALL : without(Mechanism.CLASS_TURN));
      assertThat(admit(rule, 0, "a", 0)).isZero();
      assertThat(admit(rule, 0, "b1", 1)).isEqualTo(100_000);
      assertThat(admit(rule, 0, "b2", 1)).isEqualTo(turn ? 400_000 : 200_000);
    }
  }

  /** Lift: a queue back after ten idle seconds starts at now, not at its old finish tag. */
  @Test
  void liftStartsAReturningQueueAtNow() {
    for (boolean lift : new boolean[] {true, false}) {
      OrderLayer order = new OrderLayer(1, lift ? FairRule.ALL : without(Mechanism.LIFT));
      order.configure(new double[] {1}, 1_000_000, 60_000_000);
      OrderLayer.Queue q = order.touch(0, "a", 0, 1);
      order.payQueue(q, order.queueStart(q, 0), 100_000, 1);
      order.payClass(0, order.classStart(0, 0), 100_000, 1);
      assertThat(order.queueStart(q, 10_000_000)).isEqualTo(lift ? 10_000_000 : 100_000);
      assertThat(order.classStart(0, 10_000_000)).isEqualTo(lift ? 10_000_000 : 100_000);
    }
  }

  /** Anticipation: a queue last seen half the anticipation time ago is still active. */
  @Test
  void anticipationKeepsAQueueActiveBetweenItsCalls() {
    for (boolean anticipating : new boolean[] {true, false}) {
      OrderLayer order =
          new OrderLayer(1, anticipating ? FairRule.ALL : without(Mechanism.ANTICIPATION));
      order.configure(new double[] {1}, 1_000_000, 60_000_000);
      order.touch(0, "a", 0, 1);
      order.expire(500_000);
      assertThat(order.activeQueues(0)).isEqualTo(anticipating ? 1 : 0);
    }
  }

  /**
   * Remembered weight: a class of three tenants of which one is asking now is entitled by all three
   * beside a class of one; counting active queues only, by one.
   */
  @Test
  void rememberedWeightEntitlesAClassByTheQueuesItRemembers() {
    for (boolean remembered : new boolean[] {true, false}) {
      OrderLayer order =
          new OrderLayer(2, remembered ? FairRule.ALL : without(Mechanism.REMEMBERED_WEIGHT));
      order.configure(new double[] {1, 1}, 1_000_000, 60_000_000);
      order.touch(0, "a", 0, 1);
      order.touch(0, "b", 0, 1);
      order.touch(0, "c", 0, 1);
      order.touch(2_000_000, "a", 0, 1);
      order.touch(2_000_000, "x", 1, 1);
      order.expire(2_000_000);
      assertThat(order.entitled(0)).isEqualTo(remembered ? 0.75 : 0.5);
    }
  }

  /**
   * Served rate: a class entitled to a tenth of the cap, whose one tenant is served half of it from
   * capacity nobody else asks for, moves that tenant's tag at the rate it is served (averaged over
   * the one-second horizon, about a fifth after half a second), so a call leaves it about 50 ms
   * ahead of now; at the entitled tenth, 100 ms.
   */
  @Test
  void servedRateMovesABorrowersTagAtWhatItsClassIsServed() {
    double[] ahead = new double[2];
    for (int run = 0; run < 2; run++) {
      FairRule rule =
          new FairRule(
              requests(100, 2, 1, 1), run == 0 ? FairRule.ALL : without(Mechanism.SERVED_RATE));
      for (int i = 0; i < 9; i++) {
        admit(rule, 0, "light-" + i, 0);
      }
      long now = 20_000;
      for (; now <= 500_000; now += 20_000) {
        assertThat(admit(rule, now, "busy", 1)).isZero();
      }
      ahead[run] = state(rule, FairRuleSchema.queueKey(1, "busy", "finish")) - (now - 20_000);
    }
    assertThat(ahead[0]).as("whole rule, µs ahead").isLessThan(70_000);
    assertThat(ahead[1]).as("without the served rate, µs ahead").isGreaterThan(99_000);
  }

  /** Tag correction: releasing a call that cost ten times its estimate moves both tags. */
  @Test
  void tagCorrectionMovesTheTagsByTheTrueCost() {
    for (boolean correcting : new boolean[] {true, false}) {
      FairRule rule =
          new FairRule(
              requestsAndTokens(), correcting ? FairRule.ALL : without(Mechanism.TAG_CORRECTION));
      NestedBuckets.Booking booking = new NestedBuckets.Booking("a", 0, 2);
      assertThat(rule.admit(0, "a", 0, new double[] {1, 50}, null, booking, -1)).isZero();
      double queue = state(rule, FairRuleSchema.queueKey(0, "a", "finish"));
      double klass = state(rule, FairRuleSchema.key("classFinish", 0));
      rule.release(10_000, booking, new double[] {1, 500});
      // σ grows from max(1/10, 50/1000) s to max(1/10, 500/1000) s: 400 ms more at share 1.
      double moved = correcting ? 400_000 : 0;
      assertThat(state(rule, FairRuleSchema.queueKey(0, "a", "finish")))
          .isCloseTo(queue + moved, Offset.offset(1.0));
      assertThat(state(rule, FairRuleSchema.key("classFinish", 0)))
          .isCloseTo(klass + moved, Offset.offset(1.0));
    }
  }

  /**
   * Forgive: a tenant's second call, served ahead of its turn from a cap nobody else asks for, is
   * counted as if it had started now; unforgiven, its queue's tag runs one more call ahead.
   */
  @Test
  void forgiveCountsACallServedAheadOfItsTurnFromNow() {
    for (boolean forgiving : new boolean[] {true, false}) {
      FairRule rule =
          new FairRule(requests(10, 10, 1), forgiving ? FairRule.ALL : without(Mechanism.FORGIVE));
      assertThat(admit(rule, 0, "a", 0)).isZero();
      assertThat(admit(rule, 0, "a", 0)).isZero();
      // One request at 10/s is σ = 100 ms of the whole cap.
      assertThat(state(rule, FairRuleSchema.queueKey(0, "a", "finish")))
          .isCloseTo(forgiving ? 100_000 : 200_000, Offset.offset(1.0));
    }
  }

  /**
   * Firm slot: with a burst of one request, three classes' calls at their turn at once are given
   * slots one after the other; without firm slots, nothing holds the first slot for its caller and
   * the next call is given the same one.
   */
  @Test
  void firmSlotHoldsTheCapacityForItsCaller() {
    for (boolean firm : new boolean[] {true, false}) {
      FairRule rule =
          new FairRule(
              requests(10, 1, 1, 1, 1), firm ? FairRule.ALL : without(Mechanism.FIRM_SLOT));
      assertThat(admit(rule, 0, "a", 0)).isZero();
      assertThat(admit(rule, 0, "b", 1)).isEqualTo(100_000);
      assertThat(admit(rule, 0, "c", 2)).isEqualTo(firm ? 200_000 : 100_000);
    }
  }

  /**
   * Booked turn: a call at its queue's turn, not its class's, while the cap is booked past its
   * class's turn is given its firm slot at once, so a call of another class asking next goes after
   * it; without it, the call waits for its class's turn unheld and the next call is given the same
   * slot.
   */
  @Test
  void bookedTurnHoldsTheSlotOfACallTheCapIsBookedPast() {
    for (boolean booked : new boolean[] {true, false}) {
      FairRule rule =
          new FairRule(
              requests(10, 1, 1, 1), booked ? FairRule.ALL : without(Mechanism.BOOKED_TURN));
      assertThat(admit(rule, 0, "a", 0)).isZero();
      NestedBuckets.Booking second = new NestedBuckets.Booking("b", 0, 1);
      // Class P1 paid 100 ms at the whole cap: its turn and the cap's next free time are 100 ms on.
      assertThat(rule.admit(0, "b", 0, ONE, null, second, -1)).isEqualTo(100_000);
      assertThat(second.lined).isEqualTo(booked);
      assertThat(admit(rule, 0, "c", 1)).isEqualTo(booked ? 200_000 : 100_000);
    }
  }

  /**
   * Expiry refund: with callers who give up after 2 s in one class and 5 s in the other, both
   * classes keep about their half; without it, a call that expires after waiting for its turn
   * leaves what it paid on the tags, and the class that gives up sooner pays for calls that never
   * ran.
   */
  @Test
  void expiryRefundKeepsTheShareOfAClassWhoseCallersGiveUpSooner() {
    Policy policy = FairRuleTest.twoClasses(0.5, 0.5);
    double[] refunded = FairRuleTest.answeredWithDeadlines(new FairRule(policy));
    double[] kept =
        FairRuleTest.answeredWithDeadlines(new FairRule(policy, without(Mechanism.EXPIRY_REFUND)));
    assertThat(refunded[0]).isBetween(16.0, 24.0);
    assertThat(kept[0]).isLessThan(refunded[0] / 2);
    assertThat(kept[1]).isGreaterThan(refunded[1]);
  }

  /**
   * Borrowing: a second tenant of a class past its share is admitted from the capacity nobody else
   * asks for; without borrowing, it waits for its class's turn.
   */
  @Test
  void borrowingLetsAClassPastItsShareUseWhatOthersLeave() {
    for (boolean borrowing : new boolean[] {true, false}) {
      FairRule rule =
          new FairRule(
              requests(10, 10, 1, 1), borrowing ? FairRule.ALL : without(Mechanism.BORROWING));
      assertThat(admit(rule, 0, "light", 0)).isZero();
      assertThat(admit(rule, 300_000, "b1", 1)).isZero();
      // Class P2 paid 100 ms at its half of the cap: its turn is 200 ms on.
      assertThat(admit(rule, 300_000, "b2", 1)).isEqualTo(borrowing ? 0 : 200_000);
    }
  }

  /**
   * Fill: a tenant's second call, ahead of its queue's turn, is admitted while the cap would
   * otherwise fill up; without it, the call waits for its queue's turn.
   */
  @Test
  void fillAdmitsACallAheadOfItsTurnWhileTheCapIsNearlyFull() {
    for (boolean filling : new boolean[] {true, false}) {
      FairRule rule =
          new FairRule(requests(10, 10, 1), filling ? FairRule.ALL : without(Mechanism.FILL));
      assertThat(admit(rule, 0, "a", 0)).isZero();
      assertThat(admit(rule, 0, "a", 0)).isEqualTo(filling ? 0 : 100_000);
    }
  }

  /**
   * Room: a borrowing call leaves room for the calls of a class within its share; without it, it
   * takes the last of the bucket.
   */
  @Test
  void roomKeepsCapacityForAClassWithinItsShare() {
    for (boolean leaving : new boolean[] {true, false}) {
      FairRule rule =
          new FairRule(requests(10, 2, 1, 1), leaving ? FairRule.ALL : without(Mechanism.ROOM));
      assertThat(admit(rule, 0, "light", 0)).isZero();
      assertThat(admit(rule, 300_000, "b1", 1)).isZero();
      long wait = admit(rule, 300_000, "b2", 1);
      if (leaving) {
        assertThat(wait).isPositive();
      } else {
        assertThat(wait).isZero();
      }
    }
  }

  /**
   * Estimate correction: after a call that used ten times its estimated tokens, the class's next
   * call is counted at its estimate plus the shortfall learnt; without it, at its estimate.
   */
  @Test
  void estimateCorrectionCountsTheClassShortfall() {
    for (boolean correcting : new boolean[] {true, false}) {
      FairRule rule =
          new FairRule(
              requestsAndTokens(),
              correcting ? FairRule.ALL : without(Mechanism.ESTIMATE_CORRECTION));
      NestedBuckets.Booking first = new NestedBuckets.Booking("a", 0, 2);
      rule.admit(0, "a", 0, new double[] {1, 50}, null, first, -1);
      rule.release(10_000, first, new double[] {1, 500});
      NestedBuckets.Booking next = new NestedBuckets.Booking("a", 0, 2);
      rule.admit(20_000, "a", 0, new double[] {1, 50}, null, next, -1);
      // The correction is an exponential average of weight 0.2: 0.2 · 450 tokens.
      assertThat(next.debit[1]).isEqualTo(correcting ? 50 + 0.2 * 450 : 50);
    }
  }

  /**
   * Lateness: after a first caller came back 300 ms after its firm slot, the safe window plans the
   * next held slot to leave four mean deviations of lateness, 300 ms, after its period, so the call
   * after it fits that much later.
   */
  @Test
  void latenessPlansAHeldSlotToLeaveTheWindowLate() {
    for (boolean planning : new boolean[] {true, false}) {
      CapLayer cap = new CapLayer(1, planning ? FairRule.ALL : without(Mechanism.LATENESS));
      cap.configure(DerivedPolicy.of(requestsWithWindow()), 0);
      double[] all = {100};
      SlidingWindow.Entry[] first = new SlidingWindow.Entry[1];
      cap.hold(0, all, all, first);
      cap.send(300_000, 0, first, all);
      cap.hold(1_300_000, all, all, new SlidingWindow.Entry[1]);
      assertThat(cap.fitsAt(1_000_000, ONE, new double[] {0}))
          .isEqualTo(planning ? 2_600_000 : 2_300_000);
    }
  }

  /**
   * Lateness alike for every caller shifts the whole plan and needs no margin: after forty callers
   * each 300 ms late, a held slot is planned to leave the window within 20 ms of its period.
   */
  @Test
  void latenessAlikeForEveryCallerLeavesNoMargin() {
    CapLayer cap = new CapLayer(1);
    cap.configure(DerivedPolicy.of(requestsWithWindow()), 0);
    double[] all = {100};
    long slot = 0;
    for (int i = 0; i < 40; i++) {
      SlidingWindow.Entry[] entries = new SlidingWindow.Entry[1];
      cap.hold(slot, all, all, entries);
      cap.send(slot + 300_000, slot, entries, all);
      slot += 1_300_000;
    }
    cap.hold(slot, all, all, new SlidingWindow.Entry[1]);
    assertThat(cap.fitsAt(slot - 300_000, ONE, new double[] {0}))
        .isBetween(slot + 1_000_000, slot + 1_020_000);
  }

  /** 100 requests/s with a burst of 200 and a one-second safe window, one class. */
  private static Policy requestsWithWindow() {
    return Policy.builder("t")
        .dimension(Dimension.REQUESTS, 100, 200)
        .priority("P1", 1.0)
        .safeWindow(Duration.ofSeconds(1))
        .build();
  }
}
