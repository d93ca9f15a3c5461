package io.backpressure.admin;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.backpressure.core.AuditEntry;
import io.backpressure.core.InvalidPolicyException;
import io.backpressure.core.Limits;
import io.backpressure.core.QuotaHolder;
import io.backpressure.core.QuotaUse;
import java.util.concurrent.Callable;
import java.util.function.Function;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import picocli.CommandLine.TypeConversionException;

/**
 * {@code admin quota show|set|reset}: a tenant's or a class's quota (tokens or money per calendar
 * day or month), as every worker's gate shares it in Redis. {@code set} and {@code reset} each
 * write one entry to the target's audit trail ({@code admin audit}); bad input changes nothing and
 * writes no entry.
 */
@Command(
    name = "quota",
    mixinStandardHelpOptions = true,
    description = "Reads, sets or resets a tenant's or a class's quota; changes are audited.",
    subcommands = {QuotaCommand.Show.class, QuotaCommand.Set.class, QuotaCommand.Reset.class})
final class QuotaCommand implements Callable<Integer> {
  /** The largest quota a policy takes. */
  private static final double MAX = 1e15;

  @Spec CommandSpec spec;

  @Override
  public Integer call() {
    spec.commandLine().usage(spec.commandLine().getErr());
    return AdminCommand.USAGE;
  }

  /** Whose quota: a tenant's or a class's. */
  static final class Who {
    @Option(names = "--tenant", paramLabel = "T", required = true, description = "A tenant.")
    String tenant;

    @Option(
        names = "--class",
        paramLabel = "K",
        required = true,
        description = "A priority class, e.g. P1.")
    String priority;

    QuotaHolder holder() {
      return tenant != null ? QuotaHolder.tenant(tenant) : QuotaHolder.priorityClass(priority);
    }
  }

  /** A subcommand on one holder's quota of one target. */
  abstract static class OnQuota extends TargetCommand {
    @ArgGroup(exclusive = true, multiplicity = "1")
    Who who;

    /** The holder, its name checked (1 to 128 characters) before Redis is touched. */
    QuotaHolder holder() {
      try {
        return who.holder();
      } catch (InvalidPolicyException e) {
        throw AdminException.invalid(who.tenant != null ? "--tenant" : "--class", e.getMessage());
      }
    }
  }

  /** A subcommand that changes a quota: who makes the change, for the audit trail. */
  abstract static class Change extends OnQuota {
    @Mixin ActorOption actor = new ActorOption();
  }

  /** {@code admin quota show (--tenant T | --class K)}. */
  @Command(
      name = "show",
      mixinStandardHelpOptions = true,
      description = {
        "Shows a quota, what its current window holds and when it resets.",
        "Example: admin quota show --tenant acme --target openai/gpt-4o"
      })
  static final class Show extends OnQuota {
    @Override
    public Integer call() {
      return Output.run(
          spec,
          connection.json,
          () -> {
            QuotaHolder holder = holder();
            return connection.withStore(
                target,
                store -> {
                  QuotaUse use = store.quotaUse(holder);
                  String text =
                      String.format(
                          "%s: %s %s: used %s (held for calls in flight %s), remaining %s,"
                              + " resets at %s%n",
                          target,
                          holder.field(),
                          AuditEntry.describe(use.quota()),
                          Output.number(use.used()),
                          Output.number(use.held()),
                          Output.number(use.remaining()),
                          use.resetAt());
                  ObjectNode json = Output.JSON.createObjectNode();
                  json.put("target", target);
                  json.put("field", holder.field());
                  json.putObject("quota")
                      .put("amount", use.quota().amount())
                      .put("unit", use.quota().unit().yamlName())
                      .put("per", use.quota().period().unitName());
                  json.put("used", use.used());
                  json.put("held", use.held());
                  json.put("remaining", use.remaining());
                  json.put("window_start", use.windowStart().toString());
                  json.put("reset_at", use.resetAt().toString());
                  return new Output.Result(text, json);
                });
          });
    }
  }

  /** {@code admin quota set (--tenant T | --class K) AMOUNT --per day|month [--unit U]}. */
  @Command(
      name = "set",
      mixinStandardHelpOptions = true,
      description = {
        "Sets a tenant's own or a class's quota; workers use it from their next admission.",
        "What the current window holds is kept.",
        "Example: admin quota set --tenant acme 2000000 --per day --target openai/gpt-4o"
      })
  static final class Set extends Change {
    @Parameters(
        index = "0",
        paramLabel = "AMOUNT",
        converter = StrictNumbers.Decimal.class,
        description = "The budget per window, in (0, 1e15], in tokens or in the price's currency.")
    double amount;

    @Option(
        names = "--per",
        required = true,
        paramLabel = "day|month",
        converter = PeriodName.class,
        description = "The calendar window the quota renews in, in the policy's time zone.")
    Limits.Period period;

    @Option(
        names = "--unit",
        paramLabel = "tokens|currency",
        defaultValue = "tokens",
        converter = UnitName.class,
        description =
            "What the quota counts (default: ${DEFAULT-VALUE}); currency needs the policy's"
                + " quotas.price.")
    Limits.QuotaUnit unit;

    @Override
    public Integer call() {
      return Output.run(
          spec,
          connection.json,
          () -> {
            QuotaHolder holder = holder();
            String actor = this.actor.actor();
            if (!(amount > 0 && amount <= MAX)) {
              throw AdminException.invalid(
                  holder.field(),
                  "AMOUNT of "
                      + holder.field()
                      + " must be a number in (0, "
                      + Output.number(MAX)
                      + "], got "
                      + Output.number(amount));
            }
            Limits.Quota quota = new Limits.Quota(amount, unit, period);
            return connection.withStore(
                target, store -> changed(store.setQuota(holder, quota, actor)));
          });
    }
  }

  /** {@code admin quota reset (--tenant T | --class K)}. */
  @Command(
      name = "reset",
      mixinStandardHelpOptions = true,
      description = {
        "Empties a quota's current window: the holder may spend its whole quota again.",
        "Example: admin quota reset --tenant acme --target openai/gpt-4o"
      })
  static final class Reset extends Change {
    @Override
    public Integer call() {
      return Output.run(
          spec,
          connection.json,
          () -> {
            QuotaHolder holder = holder();
            String actor = this.actor.actor();
            return connection.withStore(target, store -> changed(store.resetQuota(holder, actor)));
          });
    }
  }

  /** The report of one audited change. */
  static Output.Result changed(AuditEntry entry) {
    String text =
        String.format(
            "%s: %s %s %s -> %s (by %s at %s)%n",
            entry.target(),
            entry.action(),
            entry.field(),
            entry.before(),
            entry.after(),
            entry.actor(),
            entry.at());
    return new Output.Result(text, AuditCommand.json(entry));
  }

  /** {@code day} or {@code month}; anything else is a usage error. */
  static final class PeriodName implements ITypeConverter<Limits.Period> {
    @Override
    public Limits.Period convert(String value) {
      return named(
          Limits.Period.values(), Limits.Period::unitName, value, "a window: day or month");
    }
  }

  /** {@code tokens} or {@code currency}; anything else is a usage error. */
  static final class UnitName implements ITypeConverter<Limits.QuotaUnit> {
    @Override
    public Limits.QuotaUnit convert(String value) {
      return named(
          Limits.QuotaUnit.values(),
          Limits.QuotaUnit::yamlName,
          value,
          "a unit: tokens or currency");
    }
  }

  /** The constant of {@code values} whose {@code name} is {@code value}, or a usage error. */
  private static <E> E named(E[] values, Function<E, String> name, String value, String what) {
    for (E candidate : values) {
      if (name.apply(candidate).equals(value)) {
        return candidate;
      }
    }
    throw new TypeConversionException("'" + value + "' is not " + what);
  }
}
