package io.backpressure.eval;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class FaultTest {

  @Test
  void faultsParseAsKindAtTimePlusDuration() {
    assertThat(Fault.parse("redis-stop@10+5")).isEqualTo(new Fault("redis-stop", 10, 5));
    assertThat(Fault.parse("redis-flush@7.5")).isEqualTo(new Fault("redis-flush", 7.5, 0));
    assertThat(Fault.parse("worker-kill@12")).isEqualTo(new Fault("worker-kill", 12, 0));
    assertThat(Fault.parse("redis-kill@3+10").toString()).isEqualTo("redis-kill@3+10");
    assertThat(Fault.parse("redis-kill@3+10").describe()).isEqualTo("redis-kill at 3 s for 10 s");
  }

  @Test
  void badFaultsAreRefusedSayingWhatIsAllowed() {
    assertThatThrownBy(() -> Fault.parse("redis-stop")).hasMessageContaining("--fault must be KIND@T[+D]");
    assertThatThrownBy(() -> Fault.parse("disk-full@3+1")).hasMessageContaining("must be one of redis-stop, redis-kill");
    assertThatThrownBy(() -> Fault.parse("redis-stop@3")).hasMessageContaining("needs a duration");
    assertThatThrownBy(() -> Fault.parse("redis-flush@3+2")).hasMessageContaining("one instant");
    assertThatThrownBy(() -> Fault.parse("provider-errors@3+2")).hasMessageContaining("mock provider's fault options");
    assertThatThrownBy(() -> Fault.parse("redis-stop@-3+2")).hasMessageContaining("KIND@T[+D]");
  }

  @Test
  void faultsNeedTheHarnessToOwnWhatTheyActOn() {
    assertThatThrownBy(() -> new RealOptions(null, "default", "redis://127.0.0.1:6379", 2, null, false,
        List.of(Fault.parse("redis-kill@5+5")))).hasMessageContaining("needs --redis auto");
    assertThatThrownBy(() -> new RealOptions(null, "default", "auto", 1, null, false,
        List.of(Fault.parse("worker-kill@5+5")))).hasMessageContaining("needs --workers 2 or more");
    new RealOptions(null, "default", "auto", 2, null, false,
        List.of(Fault.parse("redis-stop@5+2"), Fault.parse("worker-kill@8+2")));
  }
}
