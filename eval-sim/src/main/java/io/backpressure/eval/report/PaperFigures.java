package io.backpressure.eval.report;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The paper's published figures for the shipped workloads (the paper's Tables III and IV), for the
 * report's comparison column. The paper's {@code litellm} is our {@code gateway}. Shares and
 * utilisations are in percent.
 */
final class PaperFigures {
  private static final Map<String, Map<String, String>> FIGURES = new LinkedHashMap<>();

  static {
    put(
        "cross-priority",
        "achievement_jain",
        "naive 0.60 · litellm 0.67 · bp 0.89 · bp-no-priority 0.839");
    put(
        "cross-priority",
        "p95_latency_ms_by_priority.P1",
        "naive 3506 · tn 3692 · bp 415 (HTTP latency, not call latency)");
    put("cross-priority", "http_429_share", "naive 23.2 % · tn 3.1 % · litellm 1.2 % · bp 4.1 %");
    put("cross-priority", "ok_rps_by_priority.P1", "naive 8.4 · tn 8.1 · litellm 7.9 · bp 21.3");
    put("cross-priority", "ok_rps_by_priority.P2", "naive 17.4 · tn 16.1 · litellm 15.9 · bp 18.5");
    put("cross-priority", "ok_rps_by_priority.P3", "naive 34.8 · tn 32.0 · litellm 31.4 · bp 11.8");
    put("cross-priority", "ok_rps_total", "naive 55.5 · litellm 35.4 · bp 49.6");
    put("cross-priority", "slot_ms_per_ok", "naive 709 · bp 259");
    put("overload", "http_429_share", "naive 14.2 % · bp 6.0 %");
    put("overload", "slot_ms_per_ok", "naive 412 · bp 224");
    put("request-bound", "http_429_share", "naive 22.6 % · tn 2.9 % · litellm 0.0 % · bp 3.1 %");
    put("request-bound", "achievement_jain", "naive 0.888 · tn 0.883 · litellm 0.887 · bp 0.990");
    put(
        "token-bound",
        "http_429_share",
        "naive 41.3 % · tn 41.1 % · litellm 17.2 % · bp 6.1 % · bp-no-drf 38.4 % · bp-no-priority 3.2 %");
    put(
        "token-bound",
        "achievement_jain",
        "naive 0.889 · tn 0.888 · litellm 0.888 · bp 0.995 · bp-no-drf 0.959 · bp-no-priority 0.886");
    put("token-bound", "ok_rps_by_priority.P1", "bp 14.3 (baselines ≈ 10)");
    put("token-bound", "ok_rps_by_priority.P2", "bp 8.8 (baselines ≈ 10)");
    put("token-bound", "ok_rps_by_priority.P3", "bp 5.9 (baselines ≈ 10)");
    put("mixed-dominant", "http_429_share", "naive 32.8 % · tn 24.2 % · litellm 9.5 % · bp 6.7 %");
    put("mixed-dominant", "achievement_jain", "naive 0.722 · tn 0.753 · litellm 0.694 · bp 0.996");
    put(
        "noisy-estimates",
        "http_429_share",
        "naive 52.6 % · tn 52.5 % · litellm 34.7 % · bp 6.0 %");
    put("noisy-estimates", "achievement_jain", "naive 0.890 · tn 0.885 · litellm 0.889 · bp 0.986");
    put("noisy-estimates", "cap_utilization.tokens", "bp 95 %");
    put("reservation", "http_429_share", "naive 52.4 % · tn 52.0 % · litellm 34.6 % · bp 3.6 %");
    put("reservation", "achievement_jain", "naive 0.886 · tn 0.883 · litellm 0.892 · bp 0.996");
    put("reservation", "cap_utilization.tokens", "bp 94 %");
    put(
        "reservation-capped",
        "http_429_share",
        "naive 52.9 % · tn 52.1 % · litellm 29.2 % · bp 3.6 %");
    put(
        "reservation-capped",
        "achievement_jain",
        "naive 0.881 · tn 0.893 · litellm 0.885 · bp 0.998");
    put("reservation-capped", "cap_utilization.tokens", "bp 96 %");
  }

  private PaperFigures() {}

  private static void put(String workload, String metric, String text) {
    FIGURES.computeIfAbsent(workload, w -> new LinkedHashMap<>()).put(metric, text);
  }

  /** The paper's figures for {@code metric} ({@code name} or {@code name.key}), or "" if none. */
  static String of(String workload, String metric) {
    return FIGURES.getOrDefault(workload, Map.of()).getOrDefault(metric, "");
  }
}
