package io.backpressure.eval;

import io.backpressure.eval.sim.PackingBound;
import io.backpressure.eval.sim.PackingBound.Window;
import io.backpressure.eval.workload.Workload;
import io.backpressure.eval.workload.Workloads;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.util.Comparator;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code ./backpressure packing-bound}: how much of a workload's token cap any gate that never
 * overfills a window can use, when one tenant's calls are a large part of the window ({@link
 * PackingBound}). Prints the bound for a window of known alignment and for a sliding one, in
 * arrival order and choosing among several waiting calls.
 *
 * <p>Exit codes: 0 on success, 2 on bad input (a malformed workload, a workload without a token
 * cap, an unknown tenant, an out-of-range option).
 */
@Command(
    name = "packing-bound",
    mixinStandardHelpOptions = true,
    description =
        "The most of a workload's token cap a gate that never overfills a window can use with one"
            + " tenant's call sizes: bin packing's loss, in arrival order and with a choice.")
public final class PackingBoundCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Option(
      names = "--workload",
      required = true,
      paramLabel = "NAME|FILE",
      description = "A workload file or a shipped workload such as large-calls-under-light.")
  String workload;

  @Option(
      names = "--tenant",
      paramLabel = "NAME",
      description =
          "The tenant whose calls fill the window (default: the one with the largest calls).")
  String tenant;

  @Option(
      names = "--lookahead",
      defaultValue = "12",
      paramLabel = "N",
      description = "How many waiting calls the sender may choose from; default ${DEFAULT-VALUE}.")
  int lookahead;

  @Option(
      names = "--calls",
      defaultValue = "20000",
      paramLabel = "N",
      description = "How many calls to send; default ${DEFAULT-VALUE}.")
  int calls;

  @Option(
      names = "--seed",
      defaultValue = "1",
      paramLabel = "SEED",
      description = "The seed of the call sizes; default ${DEFAULT-VALUE}.")
  long seed;

  /** Picocli's constructor. */
  public PackingBoundCommand() {}

  @Override
  public Integer call() {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    try {
      if (lookahead < 1 || lookahead > 1000) {
        throw new IllegalArgumentException("--lookahead must be in [1, 1000], got " + lookahead);
      }
      if (calls < 1 || calls > 10_000_000) {
        throw new IllegalArgumentException("--calls must be in [1, 10000000], got " + calls);
      }
      Workload w = Workloads.load(workload);
      Double tokensPerS = w.upstream().tokensPerS();
      if (tokensPerS == null) {
        throw new IllegalArgumentException(
            "--workload: " + w.name() + " has no token cap (upstream.tokens_per_s)");
      }
      Workload.Tenant filler =
          tenant == null
              ? w.tenants().stream()
                  .max(Comparator.comparingDouble(PackingBoundCommand::meanCall))
                  .orElseThrow(() -> new IllegalArgumentException("--workload: no tenants"))
              : w.tenants().stream()
                  .filter(t -> t.name().equals(tenant))
                  .findFirst()
                  .orElseThrow(
                      () ->
                          new IllegalArgumentException(
                              "--tenant: " + w.name() + " has no tenant named '" + tenant + "'"));
      double cap = tokensPerS * w.upstream().periodS();
      out.printf(
          Locale.ROOT,
          "%s, tenant %s: calls of %d to %d tokens against %.0f tokens per %s s window%n",
          w.name(),
          filler.name(),
          filler.promptTokens().min() + filler.completionTokens().min(),
          filler.promptTokens().max() + filler.completionTokens().max(),
          cap,
          trim(w.upstream().periodS()));
      out.printf(
          Locale.ROOT, "%-28s %14s %14s%n", "window", "arrival order", "best of " + lookahead);
      for (Window window : Window.values()) {
        out.printf(
            Locale.ROOT,
            "%-28s %13.1f%% %13.1f%%%n",
            window == Window.FIXED ? "fixed, alignment known" : "sliding (safe for any)",
            100 * use(window, cap, 1, filler),
            100 * use(window, cap, lookahead, filler));
      }
      out.flush();
      return 0;
    } catch (IllegalArgumentException | UncheckedIOException e) {
      err.println("packing-bound: " + e.getMessage());
      err.flush();
      return 2;
    }
  }

  private double use(Window window, double cap, int choice, Workload.Tenant filler) {
    SplittableRandom random = new SplittableRandom(seed);
    return PackingBound.use(
        window,
        cap,
        calls,
        choice,
        () -> filler.promptTokens().sample(random) + filler.completionTokens().sample(random));
  }

  private static double meanCall(Workload.Tenant t) {
    return t.promptTokens().mean() + t.completionTokens().mean();
  }

  private static String trim(double seconds) {
    return seconds == Math.rint(seconds) ? Long.toString((long) seconds) : Double.toString(seconds);
  }
}
