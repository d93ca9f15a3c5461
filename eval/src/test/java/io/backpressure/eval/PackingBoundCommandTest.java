package io.backpressure.eval;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class PackingBoundCommandTest {
  private final StringWriter out = new StringWriter();
  private final StringWriter err = new StringWriter();

  @Test
  void largeCallsLeaveAPartOfEveryWindowAndAChoiceRecoversSomeOfIt() {
    int code = run("--workload", "large-calls-under-light", "--calls", "5000");

    assertThat(code).as(err.toString()).isZero();
    assertThat(out.toString())
        .contains("large-calls-under-light, tenant batch: calls of 2450 to 6200 tokens")
        .contains("12000 tokens per 1 s window");
    for (String window : new String[] {"fixed, alignment known", "sliding (safe for any)"}) {
      Matcher row =
          Pattern.compile(Pattern.quote(window) + "\\s+([0-9.]+)%\\s+([0-9.]+)%")
              .matcher(out.toString());
      assertThat(row.find()).as(out.toString()).isTrue();
      double inOrder = Double.parseDouble(row.group(1));
      double bestOf12 = Double.parseDouble(row.group(2));
      assertThat(inOrder).as(window).isBetween(70.0, 90.0);
      assertThat(bestOf12).as(window).isGreaterThan(inOrder).isLessThan(100.0);
    }
  }

  @Test
  void badInputNamesTheOptionAndItsRange() {
    assertThat(run("--workload", "large-calls-under-light", "--lookahead", "0")).isEqualTo(2);
    assertThat(err.toString()).contains("--lookahead must be in [1, 1000], got 0");
    assertThat(run("--workload", "large-calls-under-light", "--tenant", "nobody")).isEqualTo(2);
    assertThat(err.toString()).contains("--tenant: large-calls-under-light has no tenant named");
    assertThat(run("--workload", "sparse-tenants")).isEqualTo(2);
    assertThat(err.toString()).contains("has no token cap (upstream.tokens_per_s)");
  }

  private int run(String... args) {
    CommandLine cmd = new CommandLine(new PackingBoundCommand());
    cmd.setOut(new PrintWriter(out, true));
    cmd.setErr(new PrintWriter(err, true));
    return cmd.execute(args);
  }
}
