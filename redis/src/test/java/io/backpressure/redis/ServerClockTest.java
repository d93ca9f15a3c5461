package io.backpressure.redis;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class ServerClockTest {
  private final AtomicLong localNanos = new AtomicLong(5_000_000_000L);
  private final ServerClock clock = new ServerClock(localNanos::get);

  @Test
  void noDeadlineBeforeAnyReplyToldTheServersTime() {
    assertThat(clock.giveUpAfter(250_000_000L)).isEmpty();
  }

  @Test
  void theDeadlineIsTheGiveUpInstantOnTheServersClock_fromTheTightestLowerBound() {
    // Server clock = local clock + 1 000 000 µs. A reply observed 3 ms after the server read its
    // clock gives offset ≥ 997 000 µs; a quicker one (1 ms) gives ≥ 999 000 µs and replaces it.
    localNanos.addAndGet(3_000_000);
    clock.observe(5_000_000 + 1_000_000);
    assertThat(clock.giveUpAfter(250_000_000L))
        .isEqualTo(Long.toString(5_003_000 + 250_000 + 997_000));
    localNanos.addAndGet(1_000_000);
    clock.observe(5_003_000 + 1_000_000);
    assertThat(clock.giveUpAfter(0)).isEqualTo(Long.toString(5_004_000 + 999_000));
    // A looser bound does not replace a tighter one while it is fresh...
    localNanos.addAndGet(10_000_000);
    clock.observe(5_004_000 + 1_000_000);
    assertThat(clock.giveUpAfter(0)).isEqualTo(Long.toString(5_014_000 + 999_000));
    // ...but does once it is more than ten seconds old (a server clock that stepped back).
    localNanos.addAndGet(11_000_000_000L);
    clock.observe(16_014_000 + 500_000);
    assertThat(clock.giveUpAfter(0)).isEqualTo(Long.toString(16_014_000 + 500_000));
  }
}
