package io.backpressure.admin;

import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * {@code admin concurrency reset}: the target's adaptive concurrency limit, as every worker's gate
 * shares it in Redis. A reset writes one entry to the target's audit trail ({@code admin audit}) in
 * the same step; a target without an adaptive limit is refused and nothing is written.
 */
@Command(
    name = "concurrency",
    mixinStandardHelpOptions = true,
    description = "Resets a target's adaptive concurrency limit; the reset is audited.",
    subcommands = {ConcurrencyCommand.Reset.class})
final class ConcurrencyCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Override
  public Integer call() {
    spec.commandLine().usage(spec.commandLine().getErr());
    return AdminCommand.USAGE;
  }

  /** {@code admin concurrency reset}. */
  @Command(
      name = "reset",
      mixinStandardHelpOptions = true,
      description = {
        "Puts the adaptive concurrency limit back to its min, where it starts: after a slow spell",
        "that the limit has not recovered from, or to start a test again. Every worker uses it",
        "from its next admission.",
        "Example: admin concurrency reset --target openai/gpt-4o"
      })
  static final class Reset extends TargetCommand {
    @Mixin ActorOption actor = new ActorOption();

    @Override
    public Integer call() {
      return Output.run(
          spec,
          connection.json,
          () -> {
            String by = actor.actor();
            return connection.withStore(
                target, store -> QuotaCommand.changed(store.resetConcurrencyLimit(by)));
          });
    }
  }
}
