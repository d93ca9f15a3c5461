package io.backpressure.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

class GateContextTest {

  @Test
  void scopesNestAndRestore() {
    assertThat(GateContext.current()).isEmpty();
    try (GateContext.Scope outer = GateContext.of("acme", "P2").open()) {
      try (GateContext.Scope inner =
          GateContext.of("acme", "P2")
              .withBooking("b-1")
              .withMaxWait(Duration.ofSeconds(5))
              .open()) {
        assertThat(GateContext.current())
            .hasValue(new GateContext("acme", "P2", "b-1", Duration.ofSeconds(5), null));
      }
      assertThat(GateContext.current()).hasValue(GateContext.of("acme", "P2"));
    }
    assertThat(GateContext.current()).isEmpty();
  }

  @Test
  void callAndRunScopeTheContextAroundOneAction_andRestoreThePreviousOneAlsoWhenItThrows()
      throws Exception {
    GateContext outer = GateContext.of("acme", "P2");
    GateContext inner = GateContext.of("globex", "P1");
    try (GateContext.Scope scope = outer.open()) {
      assertThat(inner.call(GateContext::current)).hasValue(inner);
      assertThat(GateContext.current()).hasValue(outer);
      assertThatThrownBy(
              () ->
                  inner.run(
                      () -> {
                        throw new IllegalStateException("boom");
                      }))
          .hasMessage("boom");
      assertThat(GateContext.current()).hasValue(outer);
    }
    assertThat(GateContext.current()).isEmpty();
  }

  @Test
  void travelsAsRequestHeaders() {
    GateContext context =
        GateContext.of("acme", "P1")
            .withBooking("b-7")
            .withMaxWait(Duration.ofSeconds(30))
            .withDeadline(Duration.ofSeconds(45));
    Map<String, String> headers = context.headers();
    assertThat(headers)
        .containsExactly(
            Map.entry("x-backpressure-tenant", "acme"),
            Map.entry("x-backpressure-priority", "P1"),
            Map.entry("x-backpressure-booking", "b-7"),
            Map.entry("x-backpressure-max-wait-ms", "30000"),
            Map.entry("x-backpressure-deadline-ms", "45000"));
    assertThat(GateContext.HEADERS).containsAll(headers.keySet());
    assertThat(GateContext.fromHeaders(headers::get)).isEqualTo(context);
    assertThat(GateContext.fromHeaders(name -> null)).isNull();
  }

  @Test
  void refusesAWaitLimitThatIsNotMilliseconds() {
    Map<String, String> headers =
        Map.of("x-backpressure-tenant", "acme", "x-backpressure-max-wait-ms", "5s");
    assertThatThrownBy(() -> GateContext.fromHeaders(headers::get))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "x-backpressure-max-wait-ms must be whole milliseconds in [0, 31536000000], got '5s'");
    Map<String, String> negative =
        Map.of("x-backpressure-tenant", "acme", "x-backpressure-deadline-ms", "-1");
    assertThatThrownBy(() -> GateContext.fromHeaders(negative::get))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "x-backpressure-deadline-ms must be whole milliseconds in [0, 31536000000], got '-1'");
  }
}
