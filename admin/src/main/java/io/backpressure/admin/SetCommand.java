package io.backpressure.admin;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.backpressure.core.Dimension;
import io.backpressure.core.InvalidPolicyException;
import io.backpressure.core.Policy;
import io.backpressure.redis.RedisPolicyStore;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicReference;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code admin set cap|weight}: one hot update of the target's policy in Redis. The change is
 * validated before it is written, written atomically (a concurrent writer makes it re-read and
 * re-apply, never lose an update), and every worker's gate uses it from its next admission.
 */
@Command(
    name = "set",
    mixinStandardHelpOptions = true,
    description =
        "Changes one cap or weight of a live target; workers use it from their next admission.",
    subcommands = {SetCommand.Cap.class, SetCommand.Weight.class})
final class SetCommand implements Callable<Integer> {
  /** The largest cap, burst or weight a policy takes. */
  private static final double MAX = 1e15;

  @Spec CommandSpec spec;

  @Override
  public Integer call() {
    spec.commandLine().usage(spec.commandLine().getErr());
    return AdminCommand.USAGE;
  }

  /** {@code admin set cap DIMENSION (--per-second N | --per-minute N) [--burst N]}. */
  @Command(
      name = "cap",
      mixinStandardHelpOptions = true,
      description = {
        "Sets a dimension's cap, and optionally its burst (kept as it is when not given).",
        "Example: admin set cap tokens --per-minute 720000 --burst 12000 --target openai/gpt-4o"
      })
  static final class Cap extends TargetCommand {
    @Parameters(
        index = "0",
        paramLabel = "DIMENSION",
        description = "The capped dimension, e.g. requests or tokens.")
    String dimension;

    @ArgGroup(exclusive = true, multiplicity = "1")
    Rate rate;

    @Option(
        names = "--burst",
        paramLabel = "N",
        converter = StrictNumbers.Decimal.class,
        description =
            "Most admitted at once after an idle spell, in the dimension's units (default: unchanged).")
    Double burst;

    @Mixin ActorOption actor = new ActorOption();

    /** The new cap, per second or per minute. */
    static final class Rate {
      @Option(
          names = "--per-second",
          paramLabel = "N",
          required = true,
          converter = StrictNumbers.Decimal.class,
          description = "Cap in units per second.")
      Double perSecond;

      @Option(
          names = "--per-minute",
          paramLabel = "N",
          required = true,
          converter = StrictNumbers.Decimal.class,
          description = "Cap in units per minute.")
      Double perMinute;

      /** The cap in units per second; the value as given must be in (0, 1e15] per second. */
      double perSecond(String dimension) {
        String option = perSecond != null ? "--per-second" : "--per-minute";
        double value = perSecond != null ? perSecond : perMinute;
        double max = perSecond != null ? MAX : MAX * 60;
        if (!(value > 0) || !(value <= max)) {
          throw new InvalidPolicyException(
              "dimensions." + dimension + ".cap",
              option
                  + " must be a number in (0, "
                  + Output.number(max)
                  + "], got "
                  + Output.number(value));
        }
        return perSecond != null ? value : value / 60.0;
      }
    }

    @Override
    public Integer call() {
      return Output.run(
          spec,
          connection.json,
          () ->
              connection.withStore(
                  target,
                  store -> {
                    String by = actor.actor();
                    AtomicReference<Dimension> before = new AtomicReference<>();
                    RedisPolicyStore.Stored stored =
                        store.update(
                            policy -> {
                              int d = policy.dimensionIndex(dimension);
                              if (d < 0) {
                                throw new InvalidPolicyException(
                                    "dimensions",
                                    "target '"
                                        + target
                                        + "' has no dimension named '"
                                        + dimension
                                        + "'; known: "
                                        + String.join(", ", policy.dimensionNames()));
                              }
                              before.set(policy.dimensions().get(d));
                              if (burst != null && !(burst > 0 && burst <= MAX)) {
                                throw new InvalidPolicyException(
                                    "dimensions." + dimension + ".burst",
                                    "--burst must be a number in (0, "
                                        + Output.number(MAX)
                                        + "], got "
                                        + Output.number(burst));
                              }
                              double newBurst = burst != null ? burst : before.get().burst();
                              return policy.withDimension(
                                  new Dimension(dimension, rate.perSecond(dimension), newBurst));
                            },
                            by,
                            "dimensions." + dimension,
                            policy -> {
                              Dimension d =
                                  policy.dimensions().get(policy.dimensionIndex(dimension));
                              return "cap "
                                  + Output.number(d.capPerSecond())
                                  + "/s, burst "
                                  + Output.number(d.burst());
                            });
                    Dimension after =
                        stored.policy().dimensions().get(stored.policy().dimensionIndex(dimension));
                    String text =
                        String.format(
                            "%s: %s cap %s/s -> %s/s, burst %s -> %s (policy version %s)%n",
                            target,
                            dimension,
                            Output.number(before.get().capPerSecond()),
                            Output.number(after.capPerSecond()),
                            Output.number(before.get().burst()),
                            Output.number(after.burst()),
                            stored.version());
                    ObjectNode json = changed(target, stored, "dimensions." + dimension);
                    json.putObject("from")
                        .put("per_second", before.get().capPerSecond())
                        .put("burst", before.get().burst());
                    json.putObject("to")
                        .put("per_second", after.capPerSecond())
                        .put("burst", after.burst());
                    return new Output.Result(text, json);
                  }));
    }
  }

  /** {@code admin set weight (--class K | --tenant T) WEIGHT}. */
  @Command(
      name = "weight",
      mixinStandardHelpOptions = true,
      description = {
        "Sets a priority class's weight or a tenant's weight.",
        "Example: admin set weight --class P1 0.6 --target openai/gpt-4o"
      })
  static final class Weight extends TargetCommand {
    @ArgGroup(exclusive = true, multiplicity = "1")
    Who who;

    @Parameters(
        index = "0",
        paramLabel = "WEIGHT",
        converter = StrictNumbers.Decimal.class,
        description = "The new weight, in (0, 1e15]; only ratios matter.")
    double weight;

    @Mixin ActorOption actor = new ActorOption();

    /** Whose weight: a class or a tenant. */
    static final class Who {
      @Option(
          names = "--class",
          paramLabel = "K",
          required = true,
          description = "A priority class, e.g. P1.")
      String priority;

      @Option(
          names = "--tenant",
          paramLabel = "T",
          required = true,
          description = "A tenant (added if not yet named).")
      String tenant;
    }

    @Override
    public Integer call() {
      if (!(weight > 0 && weight <= MAX)) {
        String field =
            who.priority != null ? "priorities." + who.priority : "tenants.weights." + who.tenant;
        return Output.run(
            spec,
            connection.json,
            () -> {
              throw AdminException.invalid(
                  field,
                  "WEIGHT must be a number in (0, "
                      + Output.number(MAX)
                      + "], got "
                      + Output.number(weight));
            });
      }
      return Output.run(
          spec,
          connection.json,
          () ->
              connection.withStore(
                  target,
                  store -> {
                    String by = actor.actor();
                    AtomicReference<Double> before = new AtomicReference<>();
                    RedisPolicyStore.Stored stored;
                    String field;
                    if (who.priority != null) {
                      field = "priorities." + who.priority;
                      stored =
                          store.update(
                              policy -> {
                                int k = policy.priorityIndex(who.priority);
                                if (k < 0) {
                                  throw new InvalidPolicyException(
                                      "priorities",
                                      "target '"
                                          + target
                                          + "' has no priority class named '"
                                          + who.priority
                                          + "'; known: "
                                          + String.join(", ", policy.priorityNames()));
                                }
                                before.set(policy.priorities().get(k).weight());
                                return policy.withPriorityWeight(who.priority, weight);
                              },
                              by,
                              field,
                              policy ->
                                  Output.number(
                                      policy
                                          .priorities()
                                          .get(policy.priorityIndex(who.priority))
                                          .weight()));
                    } else {
                      field = "tenants.weights." + who.tenant;
                      stored =
                          store.update(
                              policy -> {
                                before.set(policy.tenantWeight(who.tenant));
                                return policy.withTenantWeight(who.tenant, weight);
                              },
                              by,
                              field,
                              policy -> Output.number(policy.tenantWeight(who.tenant)));
                    }
                    Policy policy = stored.policy();
                    double after =
                        who.priority != null
                            ? policy.priorities().get(policy.priorityIndex(who.priority)).weight()
                            : policy.tenantWeight(who.tenant);
                    String text =
                        String.format(
                            "%s: %s weight %s -> %s (policy version %s)%n",
                            target,
                            field,
                            Output.number(before.get()),
                            Output.number(after),
                            stored.version());
                    ObjectNode json = changed(target, stored, field);
                    json.put("from", before.get());
                    json.put("to", after);
                    return new Output.Result(text, json);
                  }));
    }
  }

  private static ObjectNode changed(String target, RedisPolicyStore.Stored stored, String field) {
    ObjectNode json = Output.JSON.createObjectNode();
    json.put("target", target);
    json.put("version", stored.version());
    json.put("changed", field);
    return json;
  }
}
