package io.backpressure.eval.sim;

import io.backpressure.eval.workload.Workload;

/**
 * What a gated activity tells the gate about a call's tokens before the reply (eval/README.md,
 * "Noisy estimates and reservation: ablations"): the documented choice, and two ablations that
 * bound what any estimate or reservation rule can achieve on a workload.
 *
 * <ul>
 *   <li>{@link #PROMPT}: the documented bp choice. The estimate is the prompt (the completion is
 *       known only from the reply). The call carries the tenant's {@code max_tokens} (none: the
 *       gate's default), which reservation mode (the workload's {@code gate.reservation}) reserves.
 *   <li>{@link #MEAN}: the estimate is the tenant's mean call, prompt plus the mean (clamped)
 *       completion, as if the gate's learnt correction were known before the first reply; what
 *       differs from {@link #PROMPT} is the cold start, before the first releases teach it. In
 *       reservation mode the call reserves as {@link #PROMPT} does. Not a deployable choice.
 *   <li>{@link #ORACLE}: the estimate is what the provider will count, prompt plus completion, as
 *       if the completion were known up front; in reservation mode the call reserves exactly its
 *       completion. No rule can estimate better, so what remains of a miss under it is not caused
 *       by the estimate. Not a deployable choice.
 *   <li>{@link #TIGHT_RESERVATION}: reservation mode whatever the workload says, each call
 *       reserving the largest completion its tenant can produce (its {@code completion_tokens}'s
 *       maximum, clamped by {@code max_tokens}): the least reservation that never under-counts.
 * </ul>
 *
 * <p>Stateless and thread-safe.
 */
public enum TokenEstimate {
  PROMPT,
  MEAN,
  ORACLE,
  TIGHT_RESERVATION;

  /** Whether the gate runs in reservation mode on {@code workload}. */
  public boolean reservation(Workload workload) {
    return this == TIGHT_RESERVATION || workload.gate().reservation();
  }

  /**
   * The token estimate a call of {@code tenant} asks with, in tokens; {@code total} is what the
   * provider will count for it. In reservation mode the oracle's estimate is the prompt, its
   * completion being reserved exactly.
   */
  public long tokens(Workload workload, Workload.Tenant tenant, long prompt, long total) {
    return switch (this) {
      case PROMPT, TIGHT_RESERVATION -> prompt;
      case MEAN -> Math.round(tenant.meanTokensPerCall());
      case ORACLE -> reservation(workload) ? prompt : total;
    };
  }

  /**
   * The call's {@code max_tokens} as the gate is told it, or null for the gate's default: reserved
   * in reservation mode. The oracle tells its completion exactly (at least 1 token, the least a
   * limit may be).
   */
  public Long maxTokens(Workload.Tenant tenant, long completion) {
    return switch (this) {
      case PROMPT, MEAN -> tenant.maxTokens();
      case ORACLE -> Math.max(1, completion);
      case TIGHT_RESERVATION -> largestCompletion(tenant);
    };
  }

  /**
   * The most tokens one admission of {@code tenant} can debit before the estimate correction, in
   * tokens (the burst must hold it): its largest estimate plus, in reservation mode, its largest
   * reservation.
   */
  long largestDebit(Workload workload, Workload.Tenant tenant) {
    long prompt = tenant.promptTokens().max();
    long estimate = tokens(workload, tenant, prompt, prompt + largestCompletion(tenant));
    if (!reservation(workload)) {
      return estimate;
    }
    Long limit = maxTokens(tenant, largestCompletion(tenant));
    return estimate + (limit != null ? limit : workload.gate().defaultMaxTokens());
  }

  /** The largest completion the provider produces for {@code tenant}: its maximum, clamped. */
  private static long largestCompletion(Workload.Tenant tenant) {
    return Math.max(1, tenant.clampCompletion(tenant.completionTokens().max()));
  }
}
