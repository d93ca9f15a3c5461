package io.backpressure.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class GateContextTest {

  @Test
  void scopesNestAndRestore() {
    assertThat(GateContext.current()).isEmpty();
    try (GateContext.Scope outer = GateContext.of("acme", "P2").open()) {
      try (GateContext.Scope inner =
          GateContext.of("acme", "P2").withBooking("b-1").withMaxWait(Duration.ofSeconds(5)).open()) {
        assertThat(GateContext.current())
            .hasValue(new GateContext("acme", "P2", "b-1", Duration.ofSeconds(5)));
      }
      assertThat(GateContext.current()).hasValue(GateContext.of("acme", "P2"));
    }
    assertThat(GateContext.current()).isEmpty();
  }
}
