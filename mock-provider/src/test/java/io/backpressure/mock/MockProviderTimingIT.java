package io.backpressure.mock;

import static org.assertj.core.api.Assertions.assertThat;

import io.backpressure.mock.limit.LimitSpec;
import io.backpressure.mock.limit.WindowModel;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The mock provider over HTTP in real time: simulated latency that holds no thread per call, and
 * each window model's cap held against bursts for one second. Bounds are on the provider's own
 * arrival and finish stamps, so a loaded machine slows the run but does not change the verdict.
 */
class MockProviderTimingIT {

  private static final long MS = 1_000_000L;

  private static MockProviderConfig.Builder instant() {
    return MockProviderConfig.builder().latencyMs(0, 0);
  }

  @Test
  void simulatedLatencyDelaysTheAnswerWithoutHoldingAThreadPerCall() throws Exception {
    int calls = 40;
    MockProviderConfig config = MockProviderConfig.builder().latencyMs(1_500, 1_500).build();
    try (MockProvider provider = MockProvider.start(config)) {
      Http http = new Http(provider);
      List<CompletableFuture<Http.Answer>> answers = new ArrayList<>();
      for (int i = 0; i < calls; i++) {
        answers.add(http.postAsync("/v1/chat/completions", Http.chat("hi", null)));
      }
      CompletableFuture.allOf(answers.toArray(CompletableFuture[]::new)).join();

      List<RequestRecord> records = provider.records();
      assertThat(records).hasSize(calls).allSatisfy(r -> assertThat(r.status()).isEqualTo(200));
      assertThat(records)
          .allSatisfy(
              r ->
                  assertThat(r.finishNanos() - r.arrivalNanos())
                      .isGreaterThanOrEqualTo(1_500 * MS));
      // The handler pool has at most max(4, 2 x cores) threads; far more calls were waiting at
      // once.
      long maxInFlight = maxOverlap(records);
      assertThat(maxInFlight)
          .isGreaterThan(Math.max(4, 2L * Runtime.getRuntime().availableProcessors()));
    }
  }

  private static long maxOverlap(List<RequestRecord> records) {
    long best = 0;
    for (RequestRecord r : records) {
      long at = r.arrivalNanos();
      best =
          Math.max(
              best,
              records.stream().filter(o -> o.arrivalNanos() <= at && o.finishNanos() > at).count());
    }
    return best;
  }

  @ParameterizedTest
  @EnumSource(WindowModel.class)
  void eachWindowModelHoldsItsCapOverHttp(WindowModel model) throws Exception {
    int cap = 5;
    long period = 200 * MS;
    MockProviderConfig config =
        instant().requests(LimitSpec.of(model, cap, Duration.ofNanos(period))).build();
    try (MockProvider provider = MockProvider.start(config)) {
      Http http = new Http(provider);
      long until = System.nanoTime() + 1_000 * MS;
      while (System.nanoTime() < until) {
        List<CompletableFuture<Http.Answer>> burst = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
          burst.add(http.postAsync("/v1/chat/completions", Http.chat("hi", 1)));
        }
        burst.forEach(CompletableFuture::join);
      }
      List<Long> admitted =
          provider.records().stream()
              .filter(r -> r.status() == 200)
              .map(RequestRecord::arrivalNanos)
              .sorted()
              .toList();
      assertThat(provider.summary().rateLimitedRequests()).isPositive();
      for (int i = 0; i < admitted.size(); i++) {
        long start = admitted.get(i);
        if (model == WindowModel.FIXED) {
          long window = start / period;
          assertThat(admitted.stream().filter(t -> t / period == window).count())
              .isLessThanOrEqualTo(cap);
        } else if (model == WindowModel.SLIDING) {
          assertThat(admitted.stream().filter(t -> t >= start && t < start + period).count())
              .isLessThanOrEqualTo(cap);
        } else {
          for (int j = i; j < admitted.size(); j++) {
            double refilled = cap * (admitted.get(j) - start) / (double) period;
            assertThat(j - i + 1.0).isLessThanOrEqualTo(cap + refilled + 1e-9);
          }
        }
      }
    }
  }
}
