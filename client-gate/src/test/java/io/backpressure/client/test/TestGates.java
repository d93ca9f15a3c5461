package io.backpressure.client.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import io.backpressure.core.Admission;
import io.backpressure.core.Cost;
import io.backpressure.core.InMemoryGate;
import io.backpressure.core.Policy;
import io.backpressure.core.Ticker;
import io.backpressure.core.feedback.ProviderSignal;
import io.backpressure.core.testing.RecordingGate;
import io.backpressure.mock.MockProvider;
import io.backpressure.mock.RequestRecord;
import org.jspecify.annotations.Nullable;

/**
 * The recorded gate that the client and framework modules' tests of single calls admit through, and
 * what they check in its records: the one admission asked for, the one release with what the mock
 * provider counted, the 429 heard. For tests only.
 */
public final class TestGates {

  private TestGates() {}

  /**
   * An in-memory gate of {@code target} on {@code clock}, recorded: {@code requestsPerSecond} and
   * {@code tokensPerSecond}, each with a burst of one second's, one priority {@code P1}.
   */
  public static RecordingGate recording(
      String target, double requestsPerSecond, double tokensPerSecond, Ticker clock) {
    return new RecordingGate(
        InMemoryGate.create(
            Policy.builder(target)
                .requestsPerSecond(requestsPerSecond)
                .tokensPerSecond(tokensPerSecond)
                .priority("P1", 1)
                .build(),
            clock));
  }

  /**
   * Spends the one request a gate's burst holds (a gate {@link #recording} built with one request
   * per second, say), admitted and released outside any client for tenant {@code acme} in class
   * {@code P1}: the next call's turn is then one request's time away (a second), so the gate defers
   * it, or answers it {@code Expired} when its deadline ends sooner.
   */
  public static void spendTheBurst(RecordingGate gate) {
    Cost cost = Cost.requests(1).tokens(1);
    Admission admitted = gate.admit("acme", "P1", cost);
    assertThat(admitted).isInstanceOf(Admission.Admitted.class);
    gate.release(((Admission.Admitted) admitted).grant(), cost);
  }

  /** Asserts the gate's one admission request: its caller, its cost and its completion limit. */
  public static void assertAskedOnce(
      RecordingGate gate, String tenant, String priority, Cost cost, @Nullable Long maxTokens) {
    assertThat(gate.requests())
        .singleElement()
        .satisfies(
            request -> {
              assertThat(request.tenant()).isEqualTo(tenant);
              assertThat(request.priority()).isEqualTo(priority);
              assertThat(request.cost()).isEqualTo(cost);
              assertThat(request.maxTokens()).isEqualTo(maxTokens);
            });
  }

  /**
   * Asserts that the provider answered one call, 200, and that the gate released it once with what
   * the provider counted: one request and its prompt and completion tokens.
   *
   * @return the provider's record of the call
   */
  public static RequestRecord assertReleasedAsCounted(RecordingGate gate, MockProvider provider) {
    RequestRecord record = provider.records().get(0);
    assertThat(provider.records())
        .singleElement()
        .satisfies(r -> assertThat(r.status()).isEqualTo(200));
    assertThat(gate.releasedWith())
        .containsExactly(
            Cost.requests(1).tokens(record.promptTokens() + record.completionTokens()));
    return record;
  }

  /**
   * Asserts that the gate heard two answers: the 200 that began a stream, then the refusal that
   * ended it under way, {@code status} read as {@code meaning}.
   */
  public static void assertHeardMidStream(
      RecordingGate gate, int status, ProviderSignal.Meaning meaning) {
    assertThat(gate.signals())
        .extracting(ProviderSignal::status, ProviderSignal::meaning)
        .containsExactly(tuple(200, ProviderSignal.Meaning.ANSWERED), tuple(status, meaning));
  }

  /**
   * Asserts what a second call answered 429 leaves: the provider saw a 200 and a 429, the gate
   * heard the 429 once, both calls were released and nothing is outstanding.
   */
  public static void assertThe429Heard(RecordingGate gate, MockProvider provider) {
    assertThat(provider.records()).extracting(RequestRecord::status).containsExactly(200, 429);
    assertThat(gate.signals())
        .singleElement()
        .satisfies(s -> assertThat(s.status()).isEqualTo(429));
    assertThat(gate.releases()).hasSize(2);
    assertThat(gate.outstanding()).isZero();
  }
}
