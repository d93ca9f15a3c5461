package io.backpressure.core;

import io.backpressure.core.spi.DerivedPolicy;
import org.jspecify.annotations.Nullable;

/**
 * The admission rule as {@link InMemoryGate} drives it: one decision per attempt, one
 * reconciliation per release, under the gate's lock. Times are microseconds of the gate's clock;
 * costs are amounts per dimension in the policy's order; classes {@code k} are indexed highest
 * first. Not thread-safe.
 */
interface AdmissionRule {

  /**
   * One admission attempt at {@code now}. {@code estimate} is the caller's cost; {@code reserve},
   * in reservation mode, what to debit instead (null otherwise). {@code booking} is the call's
   * place: fresh on the first attempt, or the one an earlier deferral returned. Returns 0 when the
   * call was admitted and debited (the booking then holds the debit for {@link #release}), the
   * deferral when positive, or minus the turn's wait when that wait passes {@code maxWaitMicros}
   * (negative: no limit) and the call is answered {@code Expired}.
   */
  long admit(
      long now,
      String tenant,
      int k,
      double[] estimate,
      double @Nullable [] reserve,
      NestedBuckets.Booking booking,
      long maxWaitMicros);

  /** Reconciles an admitted call with what it really cost. */
  void release(long now, NestedBuckets.Booking grant, double[] actual);

  /** Debits calls admitted without the state (see {@link Gate#charge}) from the cap alone. */
  void charge(long now, double[] spent);

  /** Adopts new caps and weights; the dimension and class names must stay the same. */
  void configure(Policy next);

  /**
   * The provider's window of dimension {@code d} is spent from {@code from} until {@code until}.
   */
  void spent(int d, long from, long until);

  /** The first step finds the cap empty (a stand-in for a gate that was admitting at the cap). */
  void startEmpty();

  /** {@link #startEmpty()}, and the first step counts the safe window's allowance as admitted. */
  void startAfterLoss();

  Policy policy();

  DerivedPolicy derived();

  /** Live view for metrics and the admin command. */
  NestedBuckets.Snapshot snapshot();

  /** The state of the queue {@code (tenant, k)}, or null when it is not active. */
  @Nullable QueueState queue(String tenant, int k);
}
