package io.backpressure.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.backpressure.core.Admission;
import io.backpressure.core.AdmissionRequest;
import io.backpressure.core.Cost;
import io.backpressure.core.FailOpenGate;
import io.backpressure.core.Gate;
import io.backpressure.core.InMemoryGate;
import io.backpressure.core.ManualClock;
import io.backpressure.core.Policy;
import io.backpressure.core.RejectReason;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class RedisGateConfigTest {
  private static final Policy POLICY =
      Policy.builder("cfg/model").requestsPerSecond(10).priority("P1", 1).build();

  @Test
  void decidesLocallyByDefault_andCreatesThePolicyOnlyIfAbsent() {
    RedisGateConfig config =
        RedisGateConfig.builder("redis://127.0.0.1:6379").policy(POLICY).build();
    assertThat(config.whenUnavailable()).isEqualTo(FailOpenGate.Mode.LOCAL);
    assertThat(config.ownership()).isEqualTo(PolicyOwnership.CREATE_IF_ABSENT);
  }

  @Test
  void neitherToStringNorAUrlErrorShowsThePassword() {
    RedisGateConfig config =
        RedisGateConfig.builder("rediss://app:Sup3r-secret@redis:6380").policy(POLICY).build();
    assertThat(config.toString())
        .contains("rediss://***@redis:6380")
        .doesNotContain("Sup3r-secret");
    assertThatThrownBy(
            () -> RedisGateConfig.builder("ftp://:Sup3r-secret@host:6379").target("t").build())
        .hasMessageStartingWith("url must be")
        .message()
        .doesNotContain("Sup3r-secret");
  }

  @Test
  void localModeWithoutAPolicyDefersUntilRedisHasAnsweredOnce() {
    RedisGateConfig config =
        RedisGateConfig.builder("redis://127.0.0.1:1")
            .target("cfg/model")
            .connectTimeout(Duration.ofMillis(50))
            .build();
    assertThat(config.whenUnavailable()).isEqualTo(FailOpenGate.Mode.LOCAL);
    try (ResilientRedisGate gate = ResilientRedisGate.open(config)) {
      Admission answer = gate.admit("acme", "P1", Cost.requests(1));
      assertThat(answer).isInstanceOf(Admission.Deferred.class);
      assertThat(((Admission.Deferred) answer).retryAfter()).isEqualTo(ResilientRedisGate.RETRY);
      assertThat(gate.failOpen().ungatedDecisions()).isEqualTo(1);
    }
  }

  @Test
  void theLocalShareDividesEveryCapBetweenTheLiveWorkers_keepingBursts() {
    Policy two =
        Policy.builder("cfg/model")
            .dimension("requests", 30, 5)
            .dimension("tokens", 9_000, 3_000)
            .priority("P1", 1)
            .build();
    Policy share = ResilientRedisGate.share(two, 3);
    assertThat(share.dimensions().get(0).capPerSecond()).isEqualTo(10);
    assertThat(share.dimensions().get(0).burst()).isEqualTo(5);
    assertThat(share.dimensions().get(1).capPerSecond()).isEqualTo(3_000);
    assertThat(share.dimensions().get(1).burst()).isEqualTo(3_000);
    assertThat(ResilientRedisGate.share(two, 1)).isEqualTo(two);
    assertThatThrownBy(() -> ResilientRedisGate.share(two, 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("workers must be at least 1, got 0");
  }

  @Test
  void aWorkersShareKeepsAtLeastOneRequestPerSafeWindow() {
    // 30 a minute: the safe window defaults to the minute, half a request each between 60.
    Policy perMinute = Policy.builder("cfg/model").requestsPerMinute(30).priority("P1", 1).build();
    assertThat(perMinute.safeWindow()).isEqualTo(Duration.ofMinutes(1));

    Policy among60 = ResilientRedisGate.share(perMinute, 60);
    double cap = among60.dimensions().get(0).capPerSecond();
    assertThat(cap * 60).as("requests per minute for one of 60 workers").isCloseTo(1, within(1e-9));
    assertThat(cap * 60).isGreaterThanOrEqualTo(1);
    Policy among7 = ResilientRedisGate.share(perMinute, 7);
    assertThat(among7.dimensions().get(0).capPerSecond() * 60)
        .as("requests per minute for one of 7 workers, above the floor")
        .isCloseTo(30.0 / 7, within(1e-9));
    // The share decides: a local gate over it admits a call once its window allows one.
    InMemoryGate local = InMemoryGate.create(among60, new ManualClock(0));
    assertThat(local.admit("acme", "P1", Cost.requests(1))).isInstanceOf(Admission.Admitted.class);
    assertThat(local.admit("acme", "P1", Cost.requests(1))).isInstanceOf(Admission.Deferred.class);

    // Without a safe window the share is a refill rate, however small, and is not raised.
    Policy perSecond = Policy.builder("cfg/model").requestsPerSecond(2).priority("P1", 1).build();
    assertThat(perSecond.safeWindow()).isNull();
    assertThat(ResilientRedisGate.share(perSecond, 10).dimensions().get(0).capPerSecond())
        .isCloseTo(0.2, within(1e-12));
  }

  @Test
  void aCallLargerThanAWorkersShareWaitsForRedis_oneLargerThanTheWholePolicyIsRejected() {
    // 720 000 tokens a minute (burst 12 000): between 100 workers, 7 200 a minute each.
    Policy policy =
        Policy.builder("cfg/model")
            .requestsPerMinute(3_600)
            .tokensPerMinute(720_000)
            .priority("P1", 1)
            .build();
    Cost large = Cost.requests(1).tokens(10_000);
    assertThat(
            InMemoryGate.create(ResilientRedisGate.share(policy, 100), new ManualClock(0))
                .admit("acme", "P1", large))
        .as("the share alone never takes the call")
        .isInstanceOfSatisfying(
            Admission.Rejected.class,
            r -> assertThat(r.reason()).isEqualTo(RejectReason.NEVER_FITS));

    Gate local = ResilientRedisGate.localGate(policy, 100);
    assertThat(local.admit(AdmissionRequest.of("acme", "P1", large)))
        .isEqualTo(new Admission.Deferred(ResilientRedisGate.RETRY, ""));
    assertThat(local.admit(AdmissionRequest.of("acme", "P1", large).withBooking("b7")))
        .as("its booking kept")
        .isEqualTo(new Admission.Deferred(ResilientRedisGate.RETRY, "b7"));
    assertThat(local.admit("acme", "P1", Cost.requests(1).tokens(20_000)))
        .as("above the whole policy's burst: never fits anywhere")
        .isInstanceOfSatisfying(
            Admission.Rejected.class,
            r -> assertThat(r.reason()).isEqualTo(RejectReason.NEVER_FITS));
  }

  @Test
  void oneRequestPerWindowSurvivesRounding() {
    for (long nanos : new long[] {1_000_000L, 3_000_000L, 7_000_000_001L, 59_999_999_999L}) {
      double rate = ResilientRedisGate.oneRequestPer(Duration.ofNanos(nanos));
      assertThat(rate * nanos / 1e9).as("one request in %d ns", nanos).isGreaterThanOrEqualTo(1);
      assertThat(Math.abs(rate * nanos / 1e9 - 1)).isLessThan(1e-12);
    }
  }
}
