package io.backpressure.cli;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The {@code ./backpressure} command: one entry point, one subcommand per job. */
@Command(
    name = "backpressure",
    mixinStandardHelpOptions = true,
    versionProvider = Main.Version.class,
    description = "Fair admission to rate-limited APIs for multi-tenant Temporal workers.",
    subcommands = {
      Main.VersionCommand.class,
      io.backpressure.eval.DemoCommand.class,
      io.backpressure.eval.EvalCommand.class,
      io.backpressure.eval.WhatIfCommand.class,
      io.backpressure.eval.PackingBoundCommand.class,
      io.backpressure.eval.DevServerCommand.class,
      io.backpressure.mock.MockLlmCommand.class,
      io.backpressure.admin.AdminCommand.class,
      Main.Bench.class
    })
public final class Main {

  public static void main(String[] args) {
    System.exit(commandLine().execute(args));
  }

  /** The command tree, for tests and embedding. */
  public static CommandLine commandLine() {
    return new CommandLine(new Main());
  }

  /** Groups the benchmarks. */
  @Command(
      name = "bench",
      mixinStandardHelpOptions = true,
      description = "Admission benchmarks.",
      subcommands = {
        io.backpressure.bench.BenchCommand.class,
        io.backpressure.bench.redis.RedisAdmissionLoad.class
      })
  static final class Bench {}

  /** Prints the version. */
  @Command(name = "version", description = "Print the version and exit.")
  static final class VersionCommand implements Runnable {
    @Override
    public void run() {
      System.out.println("backpressure " + version());
    }
  }

  static final class Version implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() {
      return new String[] {"backpressure " + version()};
    }
  }

  static String version() {
    try (InputStream in = Main.class.getResourceAsStream("/backpressure-version.properties")) {
      Properties properties = new Properties();
      properties.load(in);
      return properties.getProperty("version");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
