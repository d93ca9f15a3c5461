package io.backpressure.core;

import io.backpressure.core.spi.DerivedPolicy;
import java.util.Map;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;

/**
 * A {@link FairRule} whose every decision is counted by the branch of {@link FairRule#admit} or
 * {@link FairRule#release} it took, read from the booking and the answer (the rule itself is not
 * touched), and whose state reads out by {@link FairRuleSchema}: for the Redis backend's
 * differential test, in this package to reach both.
 */
public final class FairRuleProbe implements AdmissionRule {
  /** The branches of {@link FairRule#admit} and {@link FairRule#release}. */
  public enum Branch {
    LINED_SENT,
    LINED_DEFERRED_AGAIN,
    TURN_ADMITTED,
    FIRM_SLOT_GIVEN,
    BOOKED_FIRM_SLOT_GIVEN,
    TURN_EXPIRED,
    BORROW_ADMITTED,
    DEFERRED_TO_CLASS_TURN,
    AHEAD_ADMITTED,
    AHEAD_DEFERRED,
    AHEAD_EXPIRED,
    RELEASE_RAN,
    RELEASE_NOT_RAN
  }

  private final FairRule rule;
  private final Map<Branch, Integer> counts = new TreeMap<>();

  private FairRuleProbe(Policy policy) {
    this.rule = new FairRule(policy);
    for (Branch b : Branch.values()) {
      counts.put(b, 0);
    }
  }

  /** A gate on {@code clock} deciding with a probed {@link FairRule}, and the probe. */
  public static FairRuleProbe probe(Policy policy) {
    return new FairRuleProbe(policy);
  }

  /** The gate that decides with this probe's rule (one per probe). */
  public InMemoryGate gate(Ticker clock) {
    return InMemoryGate.createWith(policy(), clock, this);
  }

  /** How often each branch ran. */
  public Map<Branch, Integer> counts() {
    return Map.copyOf(counts);
  }

  /** The rule's whole state under {@link FairRuleSchema}'s names. */
  public Map<String, Double> state() {
    return FairRuleSchema.read(rule);
  }

  @Override
  public long admit(
      long now,
      String tenant,
      int k,
      double[] estimate,
      double @Nullable [] reserve,
      NestedBuckets.Booking booking,
      long maxWaitMicros) {
    boolean lined = booking.lined;
    long wait = rule.admit(now, tenant, k, estimate, reserve, booking, maxWaitMicros);
    Branch branch;
    if (lined) {
      branch = wait == 0 ? Branch.LINED_SENT : Branch.LINED_DEFERRED_AGAIN;
    } else if (booking.lined) {
      branch = classTurn(k, now, booking) ? Branch.FIRM_SLOT_GIVEN : Branch.BOOKED_FIRM_SLOT_GIVEN;
    } else {
      boolean queueTurn = booking.queueStart <= now;
      boolean classTurn = queueTurn && classTurn(k, now, booking);
      if (wait == 0) {
        branch =
            classTurn
                ? Branch.TURN_ADMITTED
                : queueTurn ? Branch.BORROW_ADMITTED : Branch.AHEAD_ADMITTED;
      } else if (wait > 0) {
        branch = queueTurn ? Branch.DEFERRED_TO_CLASS_TURN : Branch.AHEAD_DEFERRED;
      } else {
        branch = queueTurn ? Branch.TURN_EXPIRED : Branch.AHEAD_EXPIRED;
      }
    }
    counts.merge(branch, 1, Integer::sum);
    return wait;
  }

  /**
   * Whether the call's class turn has come, as {@link FairRule#admit} decides it: strict, no higher
   * class active; else its class tag paid and come. (An expired call's own class payment is taken
   * back, so an expiry at its turn is one whose class tag was not paid by it.)
   */
  private boolean classTurn(int k, long now, NestedBuckets.Booking booking) {
    if (rule.policy().priorityMode() == PriorityMode.STRICT) {
      Map<String, Double> state = state();
      for (int j = 0; j < k; j++) {
        if (state.get(FairRuleSchema.key("activeQueues", j)) > 0) {
          return false;
        }
      }
      return true;
    }
    return booking.classPaid && booking.classStart <= now;
  }

  @Override
  public void release(long now, NestedBuckets.Booking grant, double[] actual) {
    boolean ran = true;
    for (int d = 0; d < actual.length; d++) {
      ran &= grant.estimate[d] <= 0 || actual[d] > 0;
    }
    counts.merge(ran ? Branch.RELEASE_RAN : Branch.RELEASE_NOT_RAN, 1, Integer::sum);
    rule.release(now, grant, actual);
  }

  @Override
  public void charge(long now, double[] spent) {
    rule.charge(now, spent);
  }

  @Override
  public void configure(Policy next) {
    rule.configure(next);
  }

  @Override
  public void spent(int d, long from, long until) {
    rule.spent(d, from, until);
  }

  @Override
  public void startEmpty() {
    rule.startEmpty();
  }

  @Override
  public void startAfterLoss() {
    rule.startAfterLoss();
  }

  @Override
  public Policy policy() {
    return rule.policy();
  }

  @Override
  public DerivedPolicy derived() {
    return rule.derived();
  }

  @Override
  public NestedBuckets.Snapshot snapshot() {
    return rule.snapshot();
  }

  @Override
  public @Nullable QueueState queue(String tenant, int k) {
    return rule.queue(tenant, k);
  }
}
