package io.backpressure.examples;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** Runs the README's in-memory example as a user would, on the wall clock. */
class InMemoryQuickstartIT {

  @Test
  void everyCallIsMadeAndCallsPastTheBurstWaitForTheirTurn() throws Exception {
    String out = StdOut.capture(() -> InMemoryQuickstart.main(new String[0]));

    Matcher summary = Pattern.compile("100 calls made, (\\d+) deferrals waited out").matcher(out);
    assertThat(summary.find()).as(out).isTrue();
    // 100 calls back to back against a burst of 60 requests and 60 a second: calls past the burst
    // waited (how many depends on how fast this machine made the first 60).
    assertThat(Integer.parseInt(summary.group(1))).isPositive();
  }

  /** Captures what an example prints to standard output. */
  static final class StdOut {
    interface Body {
      void run() throws Exception;
    }

    static synchronized String capture(Body body) throws Exception {
      PrintStream original = System.out;
      ByteArrayOutputStream bytes = new ByteArrayOutputStream();
      System.setOut(new PrintStream(bytes, true, StandardCharsets.UTF_8));
      try {
        body.run();
      } finally {
        System.setOut(original);
      }
      String out = bytes.toString(StandardCharsets.UTF_8);
      original.print(out);
      return out;
    }
  }
}
