package io.backpressure.core;

import io.backpressure.core.feedback.ProviderSignal;
import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * The admission gate of one target (one external cap set, such as {@code openai/gpt-4o}). Ask it
 * before every call; release the grant after.
 *
 * <p>Implementations are thread-safe: any number of threads (and, for shared backends, processes)
 * may call one gate at once, and each admission is one atomic check-and-debit. Neither method
 * blocks on other callers beyond the single atomic step against the state.
 */
public interface Gate {

  /** The target this gate guards. */
  String target();

  /**
   * Decides whether the call may go now. Never throws for a bad request: a malformed or impossible
   * request is {@link Admission.Rejected rejected} with a message naming the field.
   */
  Admission admit(AdmissionRequest request);

  /** Shorthand for a first attempt without {@code max_tokens}. */
  default Admission admit(String tenant, String priority, Cost cost) {
    return admit(AdmissionRequest.of(tenant, priority, cost));
  }

  /**
   * Reconciles an admitted call with what it really used: the difference between the debited and
   * the actual cost is refunded (or, when the call used more, debited too). Idempotent per grant: a
   * second release of the same grant changes nothing and returns false. Call it also when the call
   * failed (with what the provider counted, often zero tokens), so no reservation leaks; a release
   * with none of a dimension the call was estimated to use (a refused or failed call) is reconciled
   * but teaches the gate's estimate correction nothing. A grant never released errs on the strict
   * side and is forgotten after the policy's grant TTL.
   *
   * @return true when this release was applied, false when the grant was already released, expired
   *     or failed open
   * @throws IllegalArgumentException if {@code actual} names a dimension the policy does not have
   */
  boolean release(Grant grant, Cost actual);

  /**
   * Tells the gate what the provider answered to an admitted call (its status and rate-limit
   * headers, parsed by {@link io.backpressure.core.feedback.ProviderSignals}), so that it can learn
   * the provider's real caps ({@link io.backpressure.core.spi.EffectiveCaps}). Call it after {@link
   * #release}, for every answer: successes, 429s and errors. One small atomic step on the shared
   * state, off the admission path; every worker sees the result at its next admission. Never throws
   * for what the provider sent. Gates that do not learn ignore it (the default).
   *
   * @param grant the admitted call's grant, or null for a signal about no call in particular
   */
  default void feedback(@Nullable Grant grant, ProviderSignal signal) {}

  /**
   * How long after its admission an admitted call may still be sent ({@link Policy#sendWithin()} of
   * the policy in force), or null for no bound (the default). A client that sees its call leave
   * later than this releases the grant unused ({@link #release} with nothing of any dimension) and
   * asks again before sending, so that calls admitted in different windows of the provider do not
   * arrive in one.
   */
  default @Nullable Duration sendWithin() {
    return null;
  }

  /**
   * Debits {@code spent} from the target's global buckets (L1) without admitting anything: what
   * calls admitted without this gate cost while it could not answer (a fail-open wrapper's ungated
   * or local admissions, handed back when it answers again), so that the provider windows after its
   * return count them. The level may go below empty, at most one burst below; refill pays it back
   * at the cap's rate. Not idempotent: each spend is to be handed back once. Gates that keep no
   * shared state ignore it (the default).
   *
   * @throws IllegalArgumentException if {@code spent} has a negative or non-finite amount
   */
  default void charge(Cost spent) {}
}
