package io.backpressure.client.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.backpressure.client.DeferredException;
import io.backpressure.client.ExpiredException;
import io.backpressure.client.GateContext;
import io.backpressure.core.ManualClock;
import io.backpressure.core.testing.RecordingGate;
import io.backpressure.mock.MockProvider;
import java.time.Duration;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * An official SDK's own request timeout, its client's or a call's own, is the call's deadline at
 * the gate: with the burst's one request spent, a call whose timeout ends before its turn ends
 * {@link ExpiredException} at once and is not sent, and one whose timeout outlasts its turn is
 * deferred as before. Each gated client's module runs it with its SDK's way of setting a timeout.
 * The gate's clock is the client's ticker, so the deadlines the gate is asked with are exact.
 */
public abstract class SdkTimeoutSuite {

  /** The gate's clock, and the ticker of the clients {@link #call} builds. */
  protected final ManualClock clock = new ManualClock();

  private final RecordingGate gate = gate(clock);

  /**
   * The gate the clients ask, on {@link #clock}: a burst of one request, and the next turn after it
   * later than {@link #callTimeout()} (by default {@link TestGates#recording} of one request per
   * second, the turn a second away). Called once per test, as the suite is built: it may not read
   * the subclass's fields.
   */
  protected RecordingGate gate(ManualClock clock) {
    return TestGates.recording(target(), 1, 100_000, clock);
  }

  /** The target of the default {@link #gate}. */
  protected abstract String target();

  /**
   * Sends one call to {@code provider} through a client of the SDK gated by {@code gate}, whose
   * client-wide timeout is {@code clientTimeout}, with the call's own timeout {@code callTimeout}
   * if not null; closes the client.
   */
  protected abstract void call(
      RecordingGate gate,
      MockProvider provider,
      Duration clientTimeout,
      @Nullable Duration callTimeout)
      throws Exception;

  /** A call's own timeout shorter than its turn and than a 20 s client-wide one. */
  protected Duration callTimeout() {
    return Duration.ofMillis(400);
  }

  @BeforeEach
  void spendTheBurst() {
    TestGates.spendTheBurst(gate);
  }

  /** The client's timeout, then a call's own shorter one under the client's longer one. */
  @Test
  void aCallWhoseTimeoutEndsBeforeItsTurnEndsExpiredAtOnceWithoutBeingSent() throws Exception {
    try (MockProvider provider = MockProvider.start(MockAnswers.atOnce(25).build());
        GateContext.Scope scope = GateContext.of("acme", "P1").open()) {
      assertThatThrownBy(() -> call(gate, provider, Duration.ofMillis(300), null))
          .isInstanceOfSatisfying(
              ExpiredException.class,
              e -> assertThat(e.getMessage()).contains("after its deadline of 300 ms"));
      assertThatThrownBy(() -> call(gate, provider, Duration.ofSeconds(20), callTimeout()))
          .isInstanceOf(ExpiredException.class);

      assertThat(gate.requests().subList(1, 3))
          .extracting(r -> r.deadline())
          .containsExactly(Duration.ofMillis(300), callTimeout());
      assertThat(provider.records()).isEmpty();
      assertThat(gate.outstanding()).isZero();
    }
  }

  @Test
  void aCallWhoseTimeoutOutlastsItsTurnIsDeferredAsBefore() throws Exception {
    try (MockProvider provider = MockProvider.start(MockAnswers.atOnce(25).build());
        GateContext.Scope scope = GateContext.of("acme", "P1").open()) {
      assertThatThrownBy(() -> call(gate, provider, Duration.ofSeconds(20), null))
          .isInstanceOfSatisfying(
              DeferredException.class,
              e -> assertThat(e.retryAfter()).isPositive().isLessThan(Duration.ofSeconds(20)));

      assertThat(gate.requests().get(1).deadline()).isEqualTo(Duration.ofSeconds(20));
      assertThat(provider.records()).isEmpty();
    }
  }
}
