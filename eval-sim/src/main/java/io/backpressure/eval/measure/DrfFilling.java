package io.backpressure.eval.measure;

import java.util.Arrays;
import java.util.List;

/**
 * Weighted dominant-resource-fair allocation by progressive filling, with demand caps: the
 * entitlement ({@code ideal_rps_by_queue}) against which the evaluation measures every queue.
 *
 * <h2>The rule</h2>
 *
 * Queue {@code q} has weight {@code w_q}, a cost per call {@code c_q,d} in each capped dimension
 * {@code d} (capacity {@code C_d} per second), and a demand cap {@code D_q} calls/s. Its dominant
 * share per call is {@code s_q = max_d c_q,d / C_d}. A common level {@code λ} rises from 0; every
 * queue not yet frozen runs at {@code x_q = w_q · λ / s_q} calls/s, i.e. it receives dominant share
 * at rate {@code w_q · λ}. A queue freezes when it reaches its demand ({@code x_q = D_q}), or when
 * a dimension it uses ({@code c_q,d > 0}) is exhausted ({@code Σ x_q c_q,d = C_d}). Filling ends
 * when every queue is frozen. With one dimension this is weighted max-min fairness (WFQ's fluid
 * share).
 *
 * <p>The filling is computed exactly, event by event: between events every unfrozen queue grows
 * linearly in {@code λ}, so the next event is the smallest of each unfrozen queue's demand level
 * {@code D_q s_q / w_q} and each dimension's exhaustion level {@code (C_d − used_d) / slope_d},
 * where {@code used_d} is what frozen queues consume and {@code slope_d = Σ_unfrozen w_q c_q,d /
 * s_q}.
 *
 * <p>Worked example: requests 60/s and tokens 12 000/s; one queue of 850 tokens per call and two of
 * 130, equal weights, no demand cap. {@code s = 850/12000} and {@code 1/60}. The token slope is
 * {@code 12000 + 2·60·130 = 27600} per unit of {@code λ}, the request slope {@code 12000/850 + 120
 * ≈ 134.1}; tokens run out first at {@code λ = 12000/27600 ≈ 0.4348}, where the heavy queue gets
 * {@code 6.14} calls/s and each light one {@code 26.09}: equal dominant shares of 43.5 %.
 *
 * <p>Stateless and thread-safe.
 */
final class DrfFilling {
  private static final double EPS = 1e-12;

  private DrfFilling() {}

  /**
   * One queue.
   *
   * @param weight {@code w_q > 0}
   * @param costPerCall {@code c_q,d >= 0} per dimension, same order as the capacities; not all zero
   * @param demandCap most calls/s it can use, {@code > 0}; {@code Double.POSITIVE_INFINITY} for
   *     none
   */
  record Queue(double weight, double[] costPerCall, double demandCap) {}

  /**
   * The allocation in calls/s, one entry per queue in the given order.
   *
   * @param capacities {@code C_d > 0} per dimension
   * @throws IllegalArgumentException on a non-positive capacity or weight, a negative or all-zero
   *     cost, or a cost vector of the wrong length
   */
  static double[] allocate(double[] capacities, List<Queue> queues) {
    int dims = capacities.length;
    for (int d = 0; d < dims; d++) {
      if (!(capacities[d] > 0) || Double.isInfinite(capacities[d])) {
        throw new IllegalArgumentException(
            "capacity[" + d + "] must be finite and > 0, got " + capacities[d]);
      }
    }
    int n = queues.size();
    double[] share = new double[n];
    for (int q = 0; q < n; q++) {
      Queue queue = queues.get(q);
      if (!(queue.weight() > 0) || queue.costPerCall().length != dims || !(queue.demandCap() > 0)) {
        throw new IllegalArgumentException(
            "queue "
                + q
                + " needs weight > 0, demand cap > 0 and "
                + dims
                + " costs, got "
                + queue.weight()
                + ", "
                + queue.demandCap()
                + ", "
                + Arrays.toString(queue.costPerCall()));
      }
      for (int d = 0; d < dims; d++) {
        double c = queue.costPerCall()[d];
        if (!(c >= 0) || Double.isInfinite(c)) {
          throw new IllegalArgumentException(
              "queue " + q + " cost[" + d + "] must be finite and >= 0, got " + c);
        }
        share[q] = Math.max(share[q], c / capacities[d]);
      }
      if (share[q] == 0) {
        throw new IllegalArgumentException(
            "queue " + q + " costs nothing in every capped dimension");
      }
    }

    double[] rate = new double[n];
    boolean[] frozen = new boolean[n];
    double[] used = new double[dims];
    int left = n;
    while (left > 0) {
      double level = Double.POSITIVE_INFINITY;
      double[] slope = new double[dims];
      for (int q = 0; q < n; q++) {
        if (frozen[q]) {
          continue;
        }
        Queue queue = queues.get(q);
        level = Math.min(level, queue.demandCap() * share[q] / queue.weight());
        for (int d = 0; d < dims; d++) {
          slope[d] += queue.weight() * queue.costPerCall()[d] / share[q];
        }
      }
      boolean[] exhausted = new boolean[dims];
      for (int d = 0; d < dims; d++) {
        if (slope[d] > 0) {
          level = Math.min(level, Math.max(0, capacities[d] - used[d]) / slope[d]);
        }
      }
      for (int d = 0; d < dims; d++) {
        exhausted[d] =
            slope[d] > 0
                && Math.max(0, capacities[d] - used[d]) / slope[d] <= level * (1 + EPS) + EPS;
      }
      for (int q = 0; q < n; q++) {
        if (frozen[q]) {
          continue;
        }
        Queue queue = queues.get(q);
        rate[q] = Math.min(queue.demandCap(), queue.weight() * level / share[q]);
        boolean freeze = queue.demandCap() * share[q] / queue.weight() <= level * (1 + EPS) + EPS;
        for (int d = 0; d < dims && !freeze; d++) {
          freeze = exhausted[d] && queue.costPerCall()[d] > 0;
        }
        if (freeze) {
          frozen[q] = true;
          left--;
          for (int d = 0; d < dims; d++) {
            used[d] += rate[q] * queue.costPerCall()[d];
          }
        }
      }
    }
    return rate;
  }
}
