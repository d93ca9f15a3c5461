package io.backpressure.mock;

import static org.assertj.core.api.Assertions.assertThat;

import io.backpressure.mock.limit.CapSchedule;
import io.backpressure.mock.limit.LimitSpec;
import io.backpressure.mock.limit.OutsideTraffic;
import io.backpressure.mock.limit.WindowModel;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/** Caps that change on a schedule, and outside traffic, in wall-clock time over HTTP. */
class DriftIT {

  private static final long SECOND = 1_000_000_000L;

  /** Keeps 8 calls in flight until {@code seconds} after the provider started. */
  private static void hammer(MockProvider provider, double seconds) {
    Http http = new Http(provider);
    while (provider.nanosSinceStart() < seconds * SECOND) {
      List<CompletableFuture<Http.Answer>> calls = new ArrayList<>();
      for (int i = 0; i < 8; i++) {
        calls.add(http.postAsync("/v1/chat/completions", Http.chat("hi", 1)));
      }
      calls.forEach(CompletableFuture::join);
    }
  }

  private static long[] admittedPerSecond(MockProvider provider, int seconds) {
    long[] admitted = new long[seconds];
    for (RequestRecord r : provider.records()) {
      int window = (int) (r.arrivalNanos() / SECOND);
      if (r.status() == 200 && window < seconds) {
        admitted[window]++;
      }
    }
    return admitted;
  }

  @Test
  void aScheduledHalvingHoldsForItsWindowsAndTheRestoredCapIsUsedAgain() throws Exception {
    MockProviderConfig config =
        MockProviderConfig.builder()
            .latencyMs(0, 0)
            .requests(LimitSpec.perSecond(WindowModel.FIXED, 20))
            .schedule(CapSchedule.parse("1:10:-,2:20:-"))
            .build();
    try (MockProvider provider = MockProvider.start(config)) {
      hammer(provider, 3);

      long[] admitted = admittedPerSecond(provider, 3);
      assertThat(admitted[0]).isLessThanOrEqualTo(20);
      assertThat(admitted[1]).isLessThanOrEqualTo(10);
      assertThat(admitted[2]).isLessThanOrEqualTo(20);
      // The demand (8 in flight, answered at once) far exceeds 20/s even on a loaded machine.
      assertThat(admitted[2]).isGreaterThan(10);
      assertThat(provider.summary().rateLimitedRequests()).isPositive();
    }
  }

  @Test
  void outsideTrafficAndTheWorkloadTogetherStayWithinTheCap() throws Exception {
    MockProviderConfig config =
        MockProviderConfig.builder()
            .latencyMs(0, 0)
            .requests(LimitSpec.perSecond(WindowModel.FIXED, 20))
            .outside(new OutsideTraffic(5, 0))
            .build();
    try (MockProvider provider = MockProvider.start(config)) {
      hammer(provider, 3);
      Summary summary = provider.summary();

      long windows = summary.uptimeNanos() / SECOND + 1;
      assertThat(summary.ok() + summary.outsideAdmitted()).isLessThanOrEqualTo(20 * windows);
      assertThat(summary.outsideRequests()).isBetween(5 * (windows - 1), 5 * windows);
      assertThat(provider.records()).allSatisfy(r -> assertThat(r.tenant()).isEqualTo("unknown"));
      assertThat(provider.records()).hasSize((int) summary.requests());
    }
  }
}
