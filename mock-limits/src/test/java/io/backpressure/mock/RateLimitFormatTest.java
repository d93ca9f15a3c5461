package io.backpressure.mock;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class RateLimitFormatTest {

  private static final long MS = 1_000_000L;

  @Test
  void durationsReadLikeOpenAisHeaders() {
    assertThat(RateLimitFormat.duration(0)).isEqualTo("0s");
    assertThat(RateLimitFormat.duration(1)).isEqualTo("1ms");
    assertThat(RateLimitFormat.duration(12 * MS)).isEqualTo("12ms");
    assertThat(RateLimitFormat.duration(999 * MS + 1)).isEqualTo("1s");
    assertThat(RateLimitFormat.duration(1_000 * MS)).isEqualTo("1s");
    assertThat(RateLimitFormat.duration(1_500 * MS)).isEqualTo("1.5s");
    assertThat(RateLimitFormat.duration(59_999 * MS)).isEqualTo("59.999s");
    assertThat(RateLimitFormat.duration(360_000 * MS)).isEqualTo("6m0s");
    assertThat(RateLimitFormat.duration(3_723_400 * MS)).isEqualTo("1h2m3.4s");
  }

  @Test
  void retryAfterRoundsUpSoAClientThatObeysIsNeverEarly() {
    assertThat(RateLimitFormat.ceilMillis(1)).isEqualTo(1);
    assertThat(RateLimitFormat.ceilMillis(2 * MS)).isEqualTo(2);
    assertThat(RateLimitFormat.ceilSeconds(1)).isEqualTo(1);
    assertThat(RateLimitFormat.ceilSeconds(1_000 * MS)).isEqualTo(1);
    assertThat(RateLimitFormat.ceilSeconds(1_000 * MS + 1)).isEqualTo(2);
  }

  @Test
  void capsAndRemainingAreWholeNumbersWhereTheyCanBe() {
    assertThat(RateLimitFormat.limit(60)).isEqualTo("60");
    assertThat(RateLimitFormat.limit(12_000)).isEqualTo("12000");
    assertThat(RateLimitFormat.limit(0.5)).isEqualTo("0.5");
    assertThat(RateLimitFormat.remaining(2.99)).isEqualTo("2");
    assertThat(RateLimitFormat.remaining(0)).isEqualTo("0");
  }
}
