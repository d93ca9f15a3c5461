package io.backpressure.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import io.backpressure.core.Admission;
import io.backpressure.core.Cost;
import io.backpressure.core.Gate;
import io.backpressure.redis.ResilientRedisGate;
import java.net.ServerSocket;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * An application whose Redis is down at start-up still starts: the Redis gate connects in the
 * background and the fail mode decides until Redis answers. In real time: start-up waits out the
 * first connection for up to ten seconds.
 */
class RedisStartupIT {
  private final ApplicationContextRunner runner =
      new ApplicationContextRunner()
          .withConfiguration(AutoConfigurations.of(BackpressureAutoConfiguration.class));

  @Test
  void anUnreachableRedisDoesNotStopStartUp_andCallsAreGatedLocallyByDefault() throws Exception {
    int closedPort;
    try (ServerSocket socket = new ServerSocket(0)) {
      closedPort = socket.getLocalPort();
    }
    runner
        .withPropertyValues(
            "backpressure.redis.url=redis://127.0.0.1:" + closedPort,
            "backpressure.redis.connect-timeout=200ms",
            // One request a second, burst 1; no fail-mode: the default decides.
            "backpressure.targets.openai.requests-per-minute=60",
            "backpressure.targets.openai.tokens-per-minute=60000",
            "backpressure.targets.openai.priorities.P1=1")
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              Gate gate = context.getBean(Gate.class);
              assertThat(gate)
                  .isInstanceOfSatisfying(
                      ResilientRedisGate.class,
                      resilient -> assertThat(resilient.connected()).isFalse());
              int admitted = 0;
              int deferred = 0;
              for (int i = 0; i < 5; i++) {
                Admission answer = gate.admit("acme", "P1", Cost.requests(1).tokens(0));
                if (answer instanceof Admission.Admitted) {
                  admitted++;
                } else if (answer instanceof Admission.Deferred) {
                  deferred++;
                }
              }
              // This process's share of the cap (it has never reached Redis, so it counts only
              // itself): at most the burst of one goes now, the rest wait their turn.
              assertThat(admitted).as("admitted while Redis is down").isLessThanOrEqualTo(1);
              assertThat(deferred).as("deferred by the local gate").isGreaterThanOrEqualTo(4);
            });
  }
}
