package io.backpressure.temporal;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * Base of the tests that run on Temporal's in-process test server: one {@link Harness} per test
 * class, started before its first test and closed after its last. Test classes run one at a time.
 */
abstract class HarnessTest {
  static Harness harness;

  @BeforeAll
  static void startServer() {
    harness = new Harness();
  }

  @AfterAll
  static void stopServer() throws InterruptedException {
    harness.close();
  }
}
