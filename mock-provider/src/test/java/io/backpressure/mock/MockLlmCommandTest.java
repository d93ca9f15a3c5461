package io.backpressure.mock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.backpressure.mock.limit.CapSchedule;
import io.backpressure.mock.limit.LimitSpec;
import io.backpressure.mock.limit.OutsideTraffic;
import io.backpressure.mock.limit.WindowModel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;
import picocli.CommandLine.ParameterException;

class MockLlmCommandTest {

  private static MockProviderConfig parse(String... args) {
    MockLlmCommand command = new MockLlmCommand();
    new CommandLine(command).parseArgs(args);
    return command.config();
  }

  @Test
  void defaultsBindLoopbackWithNoCapsAndTheDocumentedLatency() {
    MockProviderConfig config = parse();
    assertThat(config.host()).isEqualTo("127.0.0.1");
    assertThat(config.port()).isEqualTo(8080);
    assertThat(config.requests()).isNull();
    assertThat(config.tokens()).isNull();
    assertThat(config.latencyMinMs()).isEqualTo(50);
    assertThat(config.latencyMaxMs()).isEqualTo(150);
    assertThat(config.chargeMode()).isEqualTo(ChargeMode.ACTUAL);
    assertThat(config.completionTokens()).isEqualTo(new CompletionTokens.Fixed(50));
    assertThat(config.rejectedCount()).isFalse();
  }

  @Test
  void ratesPerSecondBecomeCapsPerPeriod() {
    MockProviderConfig config =
        parse(
            "--port",
            "0",
            "--requests-per-s",
            "60",
            "--tokens-per-s",
            "12000",
            "--period-s",
            "60",
            "--window",
            "sliding",
            "--latency-ms",
            "20",
            "--completion-tokens",
            "20..200",
            "--rejected-count",
            "--charge",
            "max-tokens",
            "--seed",
            "42");
    assertThat(config.requests())
        .isEqualTo(LimitSpec.of(WindowModel.SLIDING, 3_600, Duration.ofMinutes(1)));
    assertThat(config.tokens())
        .isEqualTo(LimitSpec.of(WindowModel.SLIDING, 720_000, Duration.ofMinutes(1)));
    assertThat(config.latencyMinMs()).isEqualTo(20);
    assertThat(config.latencyMaxMs()).isEqualTo(20);
    assertThat(config.completionTokens()).isEqualTo(new CompletionTokens.Uniform(20, 200));
    assertThat(config.rejectedCount()).isTrue();
    assertThat(config.chargeMode()).isEqualTo(ChargeMode.MAX_TOKENS);
    assertThat(config.seed()).isEqualTo(42);
  }

  @Test
  void everyOptionIsRangeCheckedWithAMessageNamingIt() {
    assertRefused("--window=leaky", "--window: window must be one of fixed, sliding, bucket");
    assertRefused("--requests-per-s=0", "--requests-per-s must be in the range (0, 1e9]");
    assertRefused("--tokens-per-s=-5", "--tokens-per-s must be in the range (0, 1e9]");
    assertRefused(
        new String[] {"--requests-per-s=0.5"}, "must allow at least 1 request per period");
    assertRefused("--period-s=0", "--period-s must be in the range (0, 86400]");
    assertRefused("--latency-ms=150,50", "--latency-ms must be MIN or MIN,MAX");
    assertRefused("--latency-ms=abc", "--latency-ms must be MIN or MIN,MAX");
    assertRefused("--completion-tokens=5..x", "--completion-tokens: completion tokens must be N");
    assertRefused("--completion-tokens=-1", "completion tokens must be in the range [0, 1000000]");
    assertRefused("--charge=sometimes", "--charge: charge must be one of actual, max-tokens");
    assertRefused("--port=70000", "--port must be in the range [0, 65535]");
    assertRefused("--max-body-bytes=10", "--max-body-bytes must be in the range [1024, 67108864]");
    assertRefused(
        "--max-header-bytes=100", "--max-header-bytes must be in the range [1024, 1048576]");
    assertRefused("--idle-timeout-ms=5", "--idle-timeout-ms must be in the range [100, 3600000]");
  }

  @Test
  void driftOutsideTrafficAndErrorsAreOptions(@TempDir Path dir) throws Exception {
    MockProviderConfig config =
        parse(
            "--requests-per-s=60",
            "--tokens-per-s=12000",
            "--schedule=40:30:-,80:60:6000",
            "--outside-rps=18",
            "--outside-tokens-per-s=1800",
            "--error-rate=0.05");
    assertThat(config.schedule()).isEqualTo(CapSchedule.parse("40:30:-,80:60:6000"));
    assertThat(config.outside()).isEqualTo(new OutsideTraffic(18, 1800));
    assertThat(config.errorRate()).isEqualTo(0.05);

    Path file = dir.resolve("caps.txt");
    Files.writeString(file, "# halve, then restore\n40:30:-\n\n80:60:-\n");
    assertThat(parse("--requests-per-s=60", "--schedule-file=" + file).schedule())
        .isEqualTo(CapSchedule.parse("40:30:-,80:60:-"));

    assertRefused(
        new String[] {"--requests-per-s=60", "--schedule=40:30"},
        "--schedule: schedule step 1 must be AT_S:REQUESTS_PER_S:TOKENS_PER_S");
    assertRefused(
        new String[] {"--requests-per-s=60", "--schedule=40:-:100"},
        "--schedule: schedule step 1: tokens_per_s cannot be set");
    assertRefused(
        new String[] {"--schedule=1:1:-", "--schedule-file=" + file},
        "--schedule and --schedule-file cannot both be given");
    assertRefused("--schedule-file=" + dir.resolve("missing.txt"), "--schedule-file: cannot read");
    assertRefused("--outside-rps=-1", "--outside-rps: outside requests_per_s must be in the range");
    assertRefused(
        "--outside-tokens-per-s=10", "outside tokens_per_s needs outside requests_per_s > 0");
    assertRefused("--error-rate=1.5", "--error-rate must be in the range [0, 1], but was: 1.5");
  }

  @Test
  void capsPerDayAreOptionsCountedInAZone() {
    MockProviderConfig defaults = parse();
    assertThat(defaults.daily()).isEqualTo(DailyCaps.NONE);

    MockProviderConfig config =
        parse("--requests-per-day=200", "--tokens-per-day=90000", "--day-zone=America/Los_Angeles");
    assertThat(config.daily())
        .isEqualTo(new DailyCaps(200L, 90_000L, java.time.ZoneId.of("America/Los_Angeles")));

    assertRefused("--requests-per-day=0", "--requests-per-day must be in the range [1, ");
    assertRefused("--tokens-per-day=-3", "--tokens-per-day must be in the range [1, ");
    assertRefused(
        "--day-zone=Mars/Olympus",
        "--day-zone must be a time zone such as UTC or America/Los_Angeles, but was:"
            + " Mars/Olympus");
  }

  @Test
  void helpListsTheOptions() {
    String usage = new CommandLine(new MockLlmCommand()).getUsageMessage();
    assertThat(usage)
        .contains("mock-llm", "--requests-per-s", "--tokens-per-s", "--window", "--rejected-count");
  }

  private static void assertRefused(String arg, String message) {
    assertRefused(new String[] {arg}, message);
  }

  private static void assertRefused(String[] args, String message) {
    assertThatThrownBy(() -> parse(args))
        .isInstanceOf(ParameterException.class)
        .hasMessageContaining(message);
  }
}
