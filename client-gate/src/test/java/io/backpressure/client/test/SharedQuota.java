package io.backpressure.client.test;

import static org.assertj.core.api.Assertions.assertThat;

import io.backpressure.core.InMemoryGate;
import io.backpressure.core.Policy;
import io.backpressure.core.testing.RecordingGate;
import io.backpressure.mock.CompletionTokens;
import io.backpressure.mock.MockProvider;
import io.backpressure.mock.MockProviderConfig;
import io.backpressure.mock.RequestRecord;
import io.backpressure.mock.limit.LimitSpec;
import io.backpressure.mock.limit.WindowModel;
import java.time.Duration;
import org.assertj.core.data.Percentage;

/**
 * The quota the provider modules' tenant tests share: {@link #TENANTS} tenants making {@link
 * #CALLS} calls each ({@link TenantLoad}) against a provider that answers 10 requests per fixed
 * one-second window, through one gate on the wall clock that admits 9 a second with a burst of 1,
 * so at most 10 in any one-second window. Each module brings its own SDK and the mock's dialect for
 * it; what the run must show is the same for all.
 */
public final class SharedQuota {

  /** The tenants sharing the quota. */
  public static final int TENANTS = 4;

  /** The calls each tenant makes. */
  public static final int CALLS = 8;

  private SharedQuota() {}

  /** The provider: 10 requests per fixed one-second window, 20–60 ms, 10–30 completion tokens. */
  public static MockProviderConfig provider() {
    return MockProviderConfig.builder()
        .requests(LimitSpec.of(WindowModel.FIXED, 10, Duration.ofSeconds(1)))
        .latencyMs(20, 60)
        .completionTokens(new CompletionTokens.Uniform(10, 30))
        .build();
  }

  /**
   * The gate of {@code target}, recorded: 9 requests a second and a burst of 1, tokens unbounded,
   * one priority {@code P1}.
   */
  public static RecordingGate gate(String target) {
    Policy policy =
        Policy.builder(target)
            .dimension("requests", 9, 1)
            .tokensPerSecond(1_000_000)
            .priority("P1", 1)
            .build();
    return new RecordingGate(InMemoryGate.create(policy));
  }

  /**
   * Asserts what a run under the quota must show: no 429 reached a caller, every call was answered
   * and every request the provider saw was a 200, the tokens the gate released are within 1 % of
   * what the provider counted, each release gave back one request, and nothing is outstanding.
   */
  public static void assertAnsweredWithin(
      TenantLoad.Outcome outcome, MockProvider provider, RecordingGate gate) {
    assertThat(outcome.refused()).as("429s that reached a caller").isZero();
    assertThat(outcome.answered()).isEqualTo(TENANTS * CALLS);
    long counted = 0;
    for (RequestRecord record : provider.records()) {
      assertThat(record.status()).isEqualTo(200);
      counted += record.promptTokens() + record.completionTokens();
    }
    double released =
        gate.releases().stream()
            .filter(RecordingGate.Release::applied)
            .map(RecordingGate.Release::actual)
            .mapToDouble(c -> c.amount("tokens"))
            .sum();
    assertThat(released).isCloseTo(counted, Percentage.withPercentage(1));
    assertThat(gate.releasedWith()).allSatisfy(c -> assertThat(c.amount("requests")).isOne());
    assertThat(gate.outstanding()).isZero();
  }
}
