package io.backpressure.admin;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.backpressure.core.InvalidPolicyException;
import io.backpressure.core.Policy;
import io.backpressure.policy.yaml.PolicyYaml;
import io.backpressure.redis.RedisPolicyStore;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code admin apply -f policy.yaml}: replaces the target's whole policy with a policy file. The
 * file is parsed and checked in full before Redis is touched, so an invalid file changes nothing
 * and the error names the bad field; the write and its audit entry are one atomic step, so the
 * trail never misses a policy written nor tells of one that was not.
 */
@Command(
    name = "apply",
    mixinStandardHelpOptions = true,
    description = {
      "Replaces a target's policy with a policy file (the format of docs/policy.yaml).",
      "The file is validated before anything is written; the write is atomic and workers use",
      "it from their next admission. Renaming dimensions or classes resets the live state."
    })
final class ApplyCommand implements Callable<Integer> {
  @Spec CommandSpec spec;
  @Mixin ConnectionOptions connection;
  @Mixin ActorOption actor = new ActorOption();

  @Option(
      names = {"-f", "--file"},
      required = true,
      paramLabel = "FILE",
      description = "The policy file (YAML).")
  Path file;

  @Option(
      names = "--target",
      paramLabel = "T",
      description = "Refuse the file unless its target is this one (default: the file's target).")
  String target;

  @Option(
      names = "--dry-run",
      description = "Validate the file and print the policy; write nothing.")
  boolean dryRun;

  @Override
  public Integer call() {
    return Output.run(
        spec,
        connection.json,
        () -> {
          Policy policy = load();
          ObjectNode json = Output.JSON.createObjectNode();
          json.put("target", policy.target());
          json.put("file", file.toString());
          if (dryRun) {
            json.put("written", false);
            json.set("policy", PolicyView.json(policy));
            return new Output.Result(
                "valid: "
                    + file
                    + " (nothing written)\n"
                    + PolicyView.text(policy, "(not written)", null, false),
                json);
          }
          return connection.withStore(
              policy.target(),
              store -> {
                RedisPolicyStore.Applied applied =
                    store.apply(policy, actor.actor(), file.getFileName().toString());
                Optional<RedisPolicyStore.Stored> before = applied.before();
                RedisPolicyStore.Stored stored = applied.stored();
                boolean reset =
                    before.isPresent()
                        && (!before.get().policy().dimensionNames().equals(policy.dimensionNames())
                            || !before
                                .get()
                                .policy()
                                .priorityNames()
                                .equals(policy.priorityNames()));
                json.put("written", true);
                json.put("version", stored.version());
                json.put(
                    "previous_version", before.map(RedisPolicyStore.Stored::version).orElse(null));
                json.put("state_reset", reset);
                String text =
                    String.format(
                        "%s: applied %s (policy version %s)%s%n",
                        policy.target(),
                        file,
                        stored.version(),
                        reset
                            ? "; dimensions or classes changed, so the live bucket state was reset"
                            : "");
                return new Output.Result(text, json);
              });
        });
  }

  private Policy load() {
    String text;
    try {
      text = Files.readString(file);
    } catch (IOException e) {
      throw AdminException.invalid("--file", "cannot read policy file " + file + ": " + e);
    }
    Policy policy;
    try {
      policy = PolicyYaml.parse(text);
    } catch (InvalidPolicyException e) {
      throw AdminException.invalid(e.field(), file + ": " + e.getMessage());
    }
    if (target != null && !target.equals(policy.target())) {
      throw AdminException.invalid(
          "target",
          file + ": target is '" + policy.target() + "' but --target is '" + target + "'");
    }
    return policy;
  }
}
