package io.backpressure.bench;

import java.util.Arrays;

/**
 * The gated client's overhead per call measured A/B on one thread: each round makes one bare call,
 * one gated call and one prompt count ({@link GatedClientBenchmark}'s three operations, same setup)
 * back to back and times each, so that all three see the same machine load; it prints the median
 * and the 10th percentile of each. On a machine shared with other work this is steadier than
 * separate JMH runs, whose iterations meet different loads.
 *
 * <p>Usage: {@code GatedClientOverhead [rounds]} (default 20 000, after as many warm-up rounds).
 */
public final class GatedClientOverhead {

  private GatedClientOverhead() {}

  public static void main(String[] args) {
    int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 20_000;
    if (rounds < 10 || rounds > 10_000_000) {
      throw new IllegalArgumentException("rounds must be in [10, 10000000], got " + rounds);
    }
    for (int promptChars : new int[] {200, 4000}) {
      GatedClientBenchmark bench = new GatedClientBenchmark();
      bench.promptChars = promptChars;
      bench.setUp();
      try {
        for (int i = 0; i < rounds; i++) {
          bench.bare();
          bench.gated();
          bench.countPrompt();
        }
        long[] bare = new long[rounds];
        long[] gated = new long[rounds];
        long[] count = new long[rounds];
        for (int i = 0; i < rounds; i++) {
          long t0 = System.nanoTime();
          bench.bare();
          long t1 = System.nanoTime();
          bench.gated();
          long t2 = System.nanoTime();
          bench.countPrompt();
          long t3 = System.nanoTime();
          bare[i] = t1 - t0;
          gated[i] = t2 - t1;
          count[i] = t3 - t2;
        }
        System.out.printf(
            "prompt_chars=%d rounds=%d bare_p50_us=%.1f gated_p50_us=%.1f overhead_p50_us=%.1f"
                + " count_p50_us=%.1f bare_p10_us=%.1f gated_p10_us=%.1f count_p10_us=%.1f%n",
            promptChars,
            rounds,
            micros(bare, 50),
            micros(gated, 50),
            micros(gated, 50) - micros(bare, 50),
            micros(count, 50),
            micros(bare, 10),
            micros(gated, 10),
            micros(count, 10));
      } finally {
        bench.tearDown();
      }
    }
  }

  private static double micros(long[] nanos, int percentile) {
    long[] sorted = nanos.clone();
    Arrays.sort(sorted);
    return sorted[(int) ((long) sorted.length * percentile / 100)] / 1e3;
  }
}
