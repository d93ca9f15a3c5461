package io.backpressure.eval;

import java.io.PrintStream;

/**
 * A one-line progress bar redrawn with {@code \r}, for long runs on a terminal. Silent when
 * disabled (no console: CI logs, tests). Thread-safe.
 */
public final class ProgressBar {
  private static final int WIDTH = 30;
  private final PrintStream out;
  private final int total;
  private final boolean enabled;
  private int done;

  public ProgressBar(PrintStream out, int total, boolean enabled) {
    this.out = out;
    this.total = total;
    this.enabled = enabled && total > 0;
  }

  /** One more unit is done; {@code label} says which. */
  synchronized void step(String label) {
    done++;
    if (!enabled) {
      return;
    }
    int filled = (int) ((long) WIDTH * done / total);
    out.print(
        "\r["
            + "#".repeat(filled)
            + ".".repeat(WIDTH - filled)
            + "] "
            + done
            + "/"
            + total
            + " "
            + String.format("%-48s", label.length() > 48 ? label.substring(0, 48) : label));
    if (done == total) {
      out.println();
    }
    out.flush();
  }
}
