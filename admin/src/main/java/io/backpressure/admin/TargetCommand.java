package io.backpressure.admin;

import java.util.concurrent.Callable;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * A subcommand that acts on one named target's policy in Redis: its connection options and {@code
 * --target}.
 */
abstract class TargetCommand implements Callable<Integer> {
  @Spec CommandSpec spec;
  @Mixin ConnectionOptions connection;

  @Option(
      names = "--target",
      required = true,
      paramLabel = "T",
      description = "The target, e.g. openai/gpt-4o.")
  String target;
}
