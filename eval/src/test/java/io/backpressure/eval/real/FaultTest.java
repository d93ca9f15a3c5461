package io.backpressure.eval.real;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.backpressure.eval.EvalCommand;
import io.backpressure.eval.workload.Fault;
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
    assertThat(Fault.parse("provider-errors@4+2")).isEqualTo(new Fault("provider-errors", 4, 2));
    assertThat(Fault.parse("provider-slow@4+2.5").endS()).isEqualTo(6.5);
  }

  @Test
  void badFaultsAreRefusedSayingWhatIsAllowed() {
    assertThatThrownBy(() -> Fault.parse("redis-stop"))
        .hasMessageContaining("--fault must be KIND@T[+D]");
    assertThatThrownBy(() -> Fault.parse("disk-full@3+1"))
        .hasMessageContaining("must be one of redis-stop, redis-kill");
    assertThatThrownBy(() -> Fault.parse("redis-stop@3")).hasMessageContaining("needs a duration");
    assertThatThrownBy(() -> Fault.parse("redis-flush@3+2")).hasMessageContaining("one instant");
    assertThatThrownBy(() -> Fault.parse("provider-errors@3"))
        .hasMessageContaining("needs a duration");
    assertThatThrownBy(() -> Fault.parse("provider-slow@3"))
        .hasMessageContaining("needs a duration");
    assertThatThrownBy(() -> Fault.parse("redis-stop@-3+2")).hasMessageContaining("KIND@T[+D]");
  }

  @Test
  void faultsNeedTheHarnessToOwnWhatTheyActOn() {
    assertThatThrownBy(
            () ->
                new RealOptions(
                    null,
                    "default",
                    "redis://127.0.0.1:6379",
                    2,
                    null,
                    false,
                    List.of(Fault.parse("redis-kill@5+5"))))
        .hasMessageContaining("needs --redis auto");
    assertThatThrownBy(
            () ->
                new RealOptions(
                    null,
                    "default",
                    "auto",
                    1,
                    null,
                    false,
                    List.of(Fault.parse("worker-kill@5+5"))))
        .hasMessageContaining("needs --workers 2 or more");
    new RealOptions(
        null,
        "default",
        "auto",
        2,
        null,
        false,
        List.of(Fault.parse("redis-stop@5+2"), Fault.parse("worker-kill@8+2")));
  }

  @Test
  void theSimulatorRefusesEveryFaultNamingTheMode() {
    for (String kind : Fault.KINDS) {
      String fault = kind + "@5" + (kind.equals("redis-flush") ? "" : "+2");
      java.io.StringWriter err = new java.io.StringWriter();
      int exit =
          new picocli.CommandLine(new EvalCommand())
              .setErr(new java.io.PrintWriter(err))
              .execute(
                  "--workload",
                  "cross-priority",
                  "--configs",
                  "bp",
                  "--fault",
                  fault,
                  "--repeats",
                  "1");
      assertThat(exit).isEqualTo(2);
      assertThat(err.toString()).contains("--fault needs --mode real");
    }
  }

  @Test
  void aFailOpenModeOtherThanOpenNeedsRedis_andAnUnknownOneIsRefused() {
    assertThatThrownBy(
            () ->
                new RealOptions(
                    null,
                    "default",
                    null,
                    1,
                    null,
                    false,
                    List.of(),
                    io.backpressure.core.FailOpenGate.Mode.LOCAL))
        .hasMessageContaining("--when-unavailable needs --redis");
    java.io.StringWriter err = new java.io.StringWriter();
    int exit =
        new picocli.CommandLine(new EvalCommand())
            .setErr(new java.io.PrintWriter(err))
            .execute(
                "--workload",
                "cross-priority",
                "--configs",
                "bp",
                "--mode",
                "real",
                "--redis",
                "auto",
                "--when-unavailable",
                "sometimes",
                "--repeats",
                "1");
    assertThat(exit).isEqualTo(2);
    assertThat(err.toString()).contains("--when-unavailable must be one of open, closed, local");
  }

  @Test
  void aLocationCarriesItsFailOpenModeToTheWorkers() {
    String location =
        RedisLocation.withMode(
            "redis://127.0.0.1:6379", io.backpressure.core.FailOpenGate.Mode.LOCAL);
    assertThat(RedisLocation.mode(location))
        .isEqualTo(io.backpressure.core.FailOpenGate.Mode.LOCAL);
    assertThat(RedisLocation.options(location))
        .isEqualTo("--redis redis://127.0.0.1:6379 --when-unavailable local");
    assertThat(RedisLocation.withMode("redis://h:1", io.backpressure.core.FailOpenGate.Mode.OPEN))
        .isEqualTo("redis://h:1");
  }
}
