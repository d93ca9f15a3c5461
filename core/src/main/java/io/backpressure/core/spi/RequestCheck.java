package io.backpressure.core.spi;

import io.backpressure.core.Admission;
import io.backpressure.core.AdmissionRequest;
import io.backpressure.core.Cost;
import io.backpressure.core.Dimension;
import io.backpressure.core.Policy;
import io.backpressure.core.RejectReason;
import java.time.Duration;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Checks an admission request against a policy and resolves it into the numbers the admission rule
 * works on. Shared by every backend, so they all reject the same requests with the same messages.
 *
 * <p>Backend SPI ({@linkplain io.backpressure.core.spi the package} says what that promises): a
 * backend calls {@link #of} first and answers {@link #rejection()} when it is set. A value; its
 * arrays are not copied, so no one may change them.
 *
 * @param priorityIndex the class index, 0 highest
 * @param estimate the caller's cost per dimension, in the policy's dimension order
 * @param reserve in reservation mode, what to debit instead: the estimate with {@code max_tokens}
 *     (or the policy's {@code default_max_tokens}) added to the tokens; null otherwise
 * @param rejection non-null when the request must be rejected; the other fields are then unset (no
 *     amounts, no class)
 */
public record RequestCheck(
    int priorityIndex,
    double[] estimate,
    double @Nullable [] reserve,
    Admission.@Nullable Rejected rejection) {

  /** Longest tenant name accepted. */
  public static final int MAX_TENANT_LENGTH = 256;

  /** Resolves {@code request} under {@code policy}; never throws for a malformed request. */
  public static RequestCheck of(Policy policy, AdmissionRequest request) {
    String tenant = request.tenant();
    if (tenant == null || tenant.isBlank() || tenant.length() > MAX_TENANT_LENGTH) {
      return reject(
          RejectReason.INVALID_REQUEST,
          "tenant must be a non-empty name of at most "
              + MAX_TENANT_LENGTH
              + " characters, got "
              + (tenant == null ? "null" : "'" + abbreviate(tenant) + "'"));
    }
    int k = request.priority() == null ? -1 : policy.priorityIndex(request.priority());
    if (k < 0) {
      return reject(
          RejectReason.UNKNOWN_PRIORITY,
          "priority must be one of "
              + policy.priorityNames()
              + ", got "
              + (request.priority() == null ? "null" : "'" + abbreviate(request.priority()) + "'"));
    }
    double[] cost = amounts(policy, request.cost());
    if (cost == null) {
      return reject(RejectReason.INVALID_REQUEST, problem(policy, request.cost(), "cost"));
    }
    Long maxTokens = request.maxTokens();
    if (maxTokens != null && (maxTokens < 0 || maxTokens > 10_000_000)) {
      return reject(
          RejectReason.INVALID_REQUEST, "maxTokens must be in [0, 10000000], got " + maxTokens);
    }
    if (request.maxWait() != null && request.maxWait().isNegative()) {
      return reject(
          RejectReason.INVALID_REQUEST,
          "maxWait must be zero or a positive duration, got " + request.maxWait());
    }
    if (request.deadline() != null && request.deadline().isNegative()) {
      return reject(
          RejectReason.INVALID_REQUEST,
          "deadline must be zero or a positive duration, got " + request.deadline());
    }
    double[] reserve = null;
    int tokens = policy.reservation() ? policy.dimensionIndex(Dimension.TOKENS) : -1;
    if (tokens >= 0) {
      reserve = cost.clone();
      reserve[tokens] += maxTokens != null ? maxTokens : policy.defaultMaxTokens();
    }
    double[] debit = reserve == null ? cost : reserve;
    for (int d = 0; d < debit.length; d++) {
      double largest = DerivedPolicy.largestCost(policy, d);
      if (debit[d] > largest) {
        String name = policy.dimensions().get(d).name();
        return reject(
            RejectReason.NEVER_FITS,
            "cost."
                + name
                + " = "
                + debit[d]
                + " exceeds the most dimension "
                + name
                + " can ever admit at once (its burst, or its safe-window allowance), so it can never"
                + " be admitted; allowed range [0, "
                + largest
                + "]");
      }
    }
    return new RequestCheck(k, cost, reserve, null);
  }

  /**
   * The wait limit that applies to {@code request}: its own {@code maxWait}, else its class's
   * {@code max_wait}, else null (no limit); never longer than its {@code deadline}, when it gives
   * one (a turn after the deadline could not be answered in time).
   */
  public @Nullable Duration maxWait(Policy policy, AdmissionRequest request) {
    Duration wait =
        request.maxWait() != null
            ? request.maxWait()
            : policy.priorities().get(priorityIndex).maxWait();
    Duration deadline = request.deadline();
    return deadline != null && (wait == null || deadline.compareTo(wait) < 0) ? deadline : wait;
  }

  /**
   * The amounts of {@code cost} in policy order, or null when it names a dimension the policy does
   * not have. (The amounts themselves are in range: {@link Cost} refuses any other.)
   */
  public static double @Nullable [] amounts(Policy policy, Cost cost) {
    List<Dimension> dimensions = policy.dimensions();
    double[] amounts = new double[dimensions.size()];
    int named = 0;
    for (int d = 0; d < amounts.length; d++) {
      String name = dimensions.get(d).name();
      if (cost.names(name)) {
        amounts[d] = cost.amount(name);
        named++;
      }
    }
    return named == cost.size() ? amounts : null;
  }

  /** Describes what is wrong with {@code cost}, naming the field and the allowed range. */
  public static String problem(Policy policy, Cost cost, String field) {
    for (String dimension : cost.dimensions()) {
      if (policy.dimensionIndex(dimension) < 0) {
        return field
            + "."
            + dimension
            + " is not a dimension of target "
            + policy.target()
            + "; known: "
            + policy.dimensionNames();
      }
    }
    return field + " is valid";
  }

  private static RequestCheck reject(RejectReason reason, String message) {
    return new RequestCheck(-1, new double[0], null, new Admission.Rejected(reason, message));
  }

  private static String abbreviate(String text) {
    return text.length() <= 40 ? text : text.substring(0, 40) + "…";
  }
}
