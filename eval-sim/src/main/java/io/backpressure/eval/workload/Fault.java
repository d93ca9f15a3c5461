package io.backpressure.eval.workload;

import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One fault injected into a real run (eval/README.md, faults): {@code --fault KIND@T[+D]}, {@code
 * T} seconds after the run's origin, lasting (or followed after) {@code D} seconds.
 *
 * <ul>
 *   <li>{@code redis-stop@T+D}: SIGSTOP the harness's redis-server for {@code D} s (slow state),
 *       then SIGCONT.
 *   <li>{@code redis-kill@T+D}: SIGKILL it, restarted empty on the same port after {@code D} s.
 *   <li>{@code redis-flush@T}: FLUSHALL at {@code T}.
 *   <li>{@code worker-kill@T[+D]}: SIGKILL one worker process at {@code T}; a replacement with its
 *       slots starts after {@code D} s (none without {@code +D}).
 *   <li>{@code provider-errors@T+D}: the mock provider answers every call 500 for {@code D} s.
 *   <li>{@code provider-slow@T+D}: the mock provider's latency is ten times the workload's for
 *       {@code D} s (calls it admitted before keep theirs).
 * </ul>
 *
 * Every fault acts on the real stack (a process, a server, the provider's switches), so faults are
 * real-mode only; the simulator refuses them.
 *
 * @param kind one of {@link #KINDS}
 * @param atS when, in seconds after the run's origin
 * @param durationS how long, in seconds; 0 when not given
 */
public record Fault(String kind, double atS, double durationS) {
  public static final List<String> KINDS =
      List.of(
          "redis-stop",
          "redis-kill",
          "redis-flush",
          "worker-kill",
          "provider-errors",
          "provider-slow");
  private static final Pattern SYNTAX =
      Pattern.compile("([a-z-]+)@([0-9]+(?:\\.[0-9]+)?)(?:\\+([0-9]+(?:\\.[0-9]+)?))?");

  /**
   * Parses {@code KIND@T[+D]}.
   *
   * @throws IllegalArgumentException naming the flag, the kinds and the syntax
   */
  public static Fault parse(String text) {
    Matcher m = SYNTAX.matcher(text == null ? "" : text.strip());
    if (!m.matches()) {
      throw new IllegalArgumentException(
          "--fault must be KIND@T[+D] with T and D in seconds, e.g. redis-stop@10+5,"
              + " got '"
              + text
              + "'");
    }
    String kind = m.group(1);
    if (!KINDS.contains(kind)) {
      throw new IllegalArgumentException(
          "--fault kind must be one of " + String.join(", ", KINDS) + ", got '" + kind + "'");
    }
    double at = Double.parseDouble(m.group(2));
    double duration = m.group(3) == null ? 0 : Double.parseDouble(m.group(3));
    boolean needsDuration =
        kind.equals("redis-stop") || kind.equals("redis-kill") || kind.startsWith("provider-");
    if (needsDuration && !(duration > 0)) {
      throw new IllegalArgumentException(
          "--fault " + kind + " needs a duration: " + kind + "@T+D with D > 0, got '" + text + "'");
    }
    if (kind.equals("redis-flush") && m.group(3) != null) {
      throw new IllegalArgumentException(
          "--fault redis-flush happens at one instant: redis-flush@T, got '" + text + "'");
    }
    return new Fault(kind, at, duration);
  }

  /** Whether this fault acts on the harness's own redis-server ({@code --redis auto}). */
  public boolean onRedis() {
    return kind.startsWith("redis-");
  }

  /**
   * When the fault ends, in seconds after the run's origin: {@code T + D} ({@code T} for an
   * instant).
   */
  public double endS() {
    return atS + durationS;
  }

  /**
   * When the gate's shared state is lost, in seconds after the run's origin: the FLUSHALL, or the
   * restart of a killed redis-server (empty); NaN for a fault that keeps the state.
   */
  public double stateLostAtS() {
    return switch (kind) {
      case "redis-flush" -> atS;
      case "redis-kill" -> endS();
      default -> Double.NaN;
    };
  }

  /** As written on the command line. */
  @Override
  public String toString() {
    return kind + "@" + typed(atS) + (durationS > 0 ? "+" + typed(durationS) : "");
  }

  /** A short description for the report. */
  public String describe() {
    return String.format(
        Locale.ROOT,
        "%s at %s s%s",
        kind,
        typed(atS),
        durationS > 0 ? " for " + typed(durationS) + " s" : "");
  }

  /** {@code v} as typed on the command line: no trailing zeros. */
  private static String typed(double v) {
    return v == Math.rint(v) && Math.abs(v) < 1e15 ? Long.toString((long) v) : Double.toString(v);
  }
}
