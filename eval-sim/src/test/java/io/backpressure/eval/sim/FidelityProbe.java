package io.backpressure.eval.sim;

import io.backpressure.core.Dimension;
import io.backpressure.eval.Evaluation;
import io.backpressure.eval.measure.Metrics;
import io.backpressure.eval.measure.Recording;
import io.backpressure.eval.workload.Workload;
import io.backpressure.eval.workload.Workloads;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Where a gated run's 429s come from and what holds its token cap, computed from a simulated run's
 * records (eval/README.md, "Noisy estimates and reservation: ablations"). Run from the test
 * classpath:
 *
 * <pre>java -cp ... io.backpressure.eval.sim.FidelityProbe WORKLOAD CONFIG[,CONFIG...] REPEATS SEED
 * </pre>
 *
 * Per configuration, means over the repeats (the same repeat seeds as {@code eval}):
 *
 * <ul>
 *   <li>{@code 429_share}: rate-limited attempts / attempts; {@code tokens_bound}: the share of
 *       them the provider bound on tokens; {@code first_window}: the share of them in the
 *       provider's first window, before the first replies have taught the gate's estimate
 *       correction.
 *   <li>{@code explained}: the share of token 429s whose overshoot (the provider's fixed window's
 *       counted tokens before the call, plus the call's, minus the cap) is at most the estimate
 *       error not yet reconciled: the tokens above the tenant's mean call (what the gate's learnt
 *       estimate converges to) of the calls admitted in the same window still in flight, plus the
 *       rejected call's own. Such a 429 is one the gate could not have seen coming from its state.
 *   <li>{@code inflight_err}: the mean of that unreconciled error at a token 429, in tokens.
 *   <li>{@code per_window}: 429s per provider window that had any (a cascade inside one window).
 *   <li>{@code held_share}: in reservation mode, the reservation beyond actual usage held by calls
 *       in flight, time-averaged, as a share of the cap per period ({@code C·P}); 0 otherwise. The
 *       prompt is taken as the tenant's largest (exact for the shipped workloads' fixed prompts).
 *   <li>{@code cap_used}: tokens the provider counted over the contention window / the cap.
 * </ul>
 *
 * Single-threaded; prints one line per configuration.
 */
final class FidelityProbe {
  private FidelityProbe() {}

  /** One configuration's numbers, means over repeats. */
  record Probe(
      double share429,
      double tokensBound,
      double firstWindow,
      double explained,
      double inflightError,
      double perWindow,
      double heldShare,
      double capUsed) {}

  public static void main(String[] args) {
    Workload workload = Workloads.load(args[0]);
    int repeats = Integer.parseInt(args[2]);
    long[] seeds = Evaluation.repeatSeeds(Long.parseLong(args[3]), repeats);
    System.out.println(
        "config 429_share tokens_bound first_window explained inflight_err per_window held_share cap_used");
    for (String config : args[1].split(",")) {
      Probe p = probe(workload, config, seeds);
      System.out.println(
          String.format(
              Locale.ROOT,
              "%s %.2f%% %.1f%% %.1f%% %.1f%% %.0f %.2f %.1f%% %.1f%%",
              config,
              100 * p.share429(),
              100 * p.tokensBound(),
              100 * p.firstWindow(),
              100 * p.explained(),
              p.inflightError(),
              p.perWindow(),
              100 * p.heldShare(),
              100 * p.capUsed()));
    }
  }

  /** The means over the runs of {@code config} on {@code workload} with {@code seeds}. */
  static Probe probe(Workload workload, String config, long[] seeds) {
    double[] sums = new double[8];
    for (long seed : seeds) {
      Recording r = new SimRunner().run(workload, Configuration.named(config), seed);
      Probe p = probe(workload, config, r);
      double[] v = {
        p.share429(),
        p.tokensBound(),
        p.firstWindow(),
        p.explained(),
        p.inflightError(),
        p.perWindow(),
        p.heldShare(),
        p.capUsed()
      };
      for (int i = 0; i < v.length; i++) {
        sums[i] += v[i] / seeds.length;
      }
    }
    return new Probe(sums[0], sums[1], sums[2], sums[3], sums[4], sums[5], sums[6], sums[7]);
  }

  /** One run's numbers. */
  static Probe probe(Workload workload, String config, Recording recording) {
    long period = Math.round(workload.upstream().periodS() * 1e9);
    double cap = workload.upstream().tokensPerS() * workload.upstream().periodS();
    List<Recording.Attempt> attempts = new ArrayList<>(recording.attempts());
    attempts.sort((a, b) -> Long.compare(a.startNanos(), b.startNanos()));
    long rejected = 0;
    long tokenRejected = 0;
    long explained = 0;
    double errorSum = 0;
    Map<Long, Integer> rejectedPerWindow = new HashMap<>();
    Map<Long, Double> countedPerWindow = new HashMap<>();
    for (Recording.Attempt a : attempts) {
      long window = Math.floorDiv(a.startNanos(), period);
      if (a.rateLimited()) {
        rejected++;
        rejectedPerWindow.merge(window, 1, Integer::sum);
        if (Dimension.TOKENS.equals(a.boundDimension())) {
          tokenRejected++;
          double overshoot = countedPerWindow.getOrDefault(window, 0.0) + a.tokens() - cap;
          double error =
              unreconciledError(workload, attempts, a, window * period) + excess(workload, a);
          errorSum += error;
          if (overshoot <= error) {
            explained++;
          }
        }
      }
      if (a.counted()) {
        countedPerWindow.merge(window, a.tokens(), Double::sum);
      }
    }
    long start = Workload.nanos(workload.warmupS());
    long end = Metrics.windowEnd(workload, recording);
    return new Probe(
        attempts.isEmpty() ? 0 : (double) rejected / attempts.size(),
        rejected == 0 ? 0 : (double) tokenRejected / rejected,
        rejected == 0 ? 0 : (double) rejectedPerWindow.getOrDefault(0L, 0) / rejected,
        tokenRejected == 0 ? 0 : (double) explained / tokenRejected,
        tokenRejected == 0 ? 0 : errorSum / tokenRejected,
        rejectedPerWindow.isEmpty() ? 0 : (double) rejected / rejectedPerWindow.size(),
        heldShare(workload, config, attempts, start, end, cap),
        Metrics.utilization(workload, recording, start, end).get(Dimension.TOKENS));
  }

  /** Tokens above its tenant's mean call that {@code a} carried. */
  private static double excess(Workload workload, Recording.Attempt a) {
    return a.tokens() - workload.tenants().get(a.queue()).meanTokensPerCall();
  }

  /**
   * The excess of the counted calls that started in this window before {@code at} and are still in
   * flight.
   */
  private static double unreconciledError(
      Workload workload, List<Recording.Attempt> sorted, Recording.Attempt at, long windowStart) {
    double error = 0;
    for (Recording.Attempt a : sorted) {
      if (a.startNanos() >= at.startNanos()) {
        break;
      }
      if (a.startNanos() >= windowStart && a.counted() && a.endNanos() > at.startNanos()) {
        error += excess(workload, a);
      }
    }
    return error;
  }

  /**
   * The time-averaged reservation beyond actual usage held by answered calls in flight within
   * [start, end), over the cap per period; 0 when {@code config} does not reserve.
   */
  private static double heldShare(
      Workload workload,
      String config,
      List<Recording.Attempt> attempts,
      long start,
      long end,
      double capPerPeriod) {
    GateConfiguration.Variant variant = variantOf(config);
    if (variant == null || !variant.estimate.reservation(workload)) {
      return 0;
    }
    double held = 0;
    for (Recording.Attempt a : attempts) {
      if (!a.counted() || a.endNanos() <= start || a.startNanos() >= end) {
        continue;
      }
      Workload.Tenant tenant = workload.tenants().get(a.queue());
      long prompt = tenant.promptTokens().max();
      long completion = Math.round(a.tokens()) - prompt;
      Long limit = variant.estimate.maxTokens(tenant, completion);
      double reserved =
          variant.estimate.tokens(workload, tenant, prompt, Math.round(a.tokens()))
              + (limit != null ? limit : workload.gate().defaultMaxTokens());
      long overlap = Math.min(a.endNanos(), end) - Math.max(a.startNanos(), start);
      held += (reserved - a.tokens()) * overlap;
    }
    return held / (double) (end - start) / capPerPeriod;
  }

  private static GateConfiguration.Variant variantOf(String config) {
    for (GateConfiguration.Variant v : GateConfiguration.Variant.values()) {
      if (v.label.equals(config)) {
        return v;
      }
    }
    return null;
  }
}
