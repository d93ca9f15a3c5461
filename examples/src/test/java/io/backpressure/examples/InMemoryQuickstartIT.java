package io.backpressure.examples;

import static org.assertj.core.api.Assertions.assertThat;

import io.backpressure.core.Dimension;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** Runs the README's in-memory example as a user would, on the wall clock. */
class InMemoryQuickstartIT {

  @Test
  void everyCallIsMadeAndTheCallsPastTheBurstAreSpacedOutAtTheCap() throws Exception {
    long start = System.nanoTime();
    String out = StdOut.capture(() -> InMemoryQuickstart.main(new String[0]));
    double elapsed = (System.nanoTime() - start) / 1e9;

    assertThat(out).contains(InMemoryQuickstart.CALLS + " calls made in ");
    // The requests bucket admits at most burst + cap·t calls in t seconds, so the calls past the
    // burst (40 of 100 at 60 a second, burst 60) must have waited for their turn: at least 0.67 s.
    Dimension requests =
        InMemoryQuickstart.policy().dimensions().stream()
            .filter(d -> d.name().equals(Dimension.REQUESTS))
            .findFirst()
            .orElseThrow();
    double required = (InMemoryQuickstart.CALLS - requests.burst()) / requests.capPerSecond();
    assertThat(required).as("the example asks for more than the burst").isPositive();
    assertThat(elapsed)
        .as("seconds for %d calls", InMemoryQuickstart.CALLS)
        .isGreaterThanOrEqualTo(required);
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
