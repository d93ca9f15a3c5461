package io.backpressure.admin;

import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * {@code ./backpressure admin}: inspects and hot-updates a target's policy in Redis, where every
 * worker's gate reads it at its next admission.
 *
 * <pre>
 * admin show  --target openai/gpt-4o [--json]
 * admin set cap tokens --per-minute 720000 [--burst 12000] --target openai/gpt-4o
 * admin set weight (--class P1 | --tenant acme) 2.0 --target openai/gpt-4o
 * admin apply -f policy.yaml [--dry-run]
 * admin quota show (--tenant T | --class K) --target openai/gpt-4o
 * admin quota set (--tenant T | --class K) 2000000 --per day [--unit tokens|currency] [--actor NAME]
 * admin quota reset (--tenant T | --class K) [--actor NAME] --target openai/gpt-4o
 * admin concurrency reset [--actor NAME] --target openai/gpt-4o
 * admin audit --target openai/gpt-4o [--last N]
 * </pre>
 *
 * <p>Every subcommand takes {@code --redis URL} (default {@code $BACKPRESSURE_REDIS_URL}, else
 * {@code redis://127.0.0.1:6379}), {@code --key-prefix}, {@code --timeout-ms} and {@code --json}.
 * Exit codes: {@value #OK} done; {@value #INVALID} invalid input (the message names the field or
 * option, nothing was written); {@value #USAGE} usage (unknown option, missing argument, value of
 * the wrong type); {@value #UNREACHABLE} Redis did not answer; {@value #NO_POLICY} the target has
 * no policy yet (write one with {@code apply}).
 */
@Command(
    name = "admin",
    mixinStandardHelpOptions = true,
    description =
        "Inspect and hot-update a target's caps, weights and quotas in Redis; every change is"
            + " audited.",
    subcommands = {
      ShowCommand.class,
      SetCommand.class,
      ApplyCommand.class,
      QuotaCommand.class,
      ConcurrencyCommand.class,
      AuditCommand.class
    },
    exitCodeListHeading = "%nExit codes:%n",
    exitCodeList = {
      "0:done",
      "1:invalid input (the message names the field; nothing was written)",
      "2:usage error",
      "3:Redis unreachable or failing",
      "4:the target has no policy yet (write one with apply)"
    })
public final class AdminCommand implements Callable<Integer> {
  /** Done. */
  public static final int OK = 0;

  /** Invalid input: a value out of range, a malformed policy file, an unknown name. */
  public static final int INVALID = 1;

  /** Usage error: unknown option, missing argument, value of the wrong type. */
  public static final int USAGE = 2;

  /** Redis did not answer (unreachable, timed out or failing). */
  public static final int UNREACHABLE = 3;

  /** The target has no policy in Redis yet. */
  public static final int NO_POLICY = 4;

  @Spec CommandSpec spec;

  /** Creates the command; picocli fills its subcommands. */
  public AdminCommand() {}

  /** Without a subcommand: prints the usage on stderr and exits with {@value #USAGE}. */
  @Override
  public Integer call() {
    spec.commandLine().usage(spec.commandLine().getErr());
    return USAGE;
  }
}
