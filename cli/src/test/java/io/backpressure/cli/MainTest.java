package io.backpressure.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class MainTest {
  @Test
  void helpListsTheCommands_andAnUnknownCommandFailsWithUsage() {
    CommandLine cli = Main.commandLine();
    StringWriter out = new StringWriter();
    cli.setOut(new PrintWriter(out));
    assertThat(cli.execute("--help")).isZero();
    assertThat(out.toString()).contains("version");

    StringWriter err = new StringWriter();
    cli.setErr(new PrintWriter(err));
    assertThat(cli.execute("no-such-command")).isEqualTo(2);
    assertThat(err.toString()).contains("no-such-command");
  }

  @Test
  void versionComesFromTheBuild() {
    assertThat(Main.version()).matches("\\d+\\.\\d+\\.\\d+.*");
  }
}
