package io.backpressure.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.backpressure.core.Admission;
import io.backpressure.core.Cost;
import io.backpressure.core.FailOpenGate;
import io.backpressure.core.Policy;
import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The Redis server stops mid-run and comes back (empty: it keeps no data). Through the core's
 * fail-open wrapper, calls keep flowing while it is down (counted, one warning per log interval),
 * no exception reaches a caller, and gating resumes within 2 s of the restart.
 */
class FailOpenIT {

  private record Call(long nanos, boolean gated) {}

  @Test
  void callsProceedWhileRedisIsDown_andGatingResumesWithinTwoSecondsOfItsReturn() throws Exception {
    TestRedis server = TestRedis.owned();
    Policy policy =
        Policy.builder("outage/model").requestsPerSecond(1_000).priority("P1", 1).build();
    ByteArrayOutputStream log = new ByteArrayOutputStream();
    PrintStream stderr = System.err;
    System.setErr(new PrintStream(new Tee(stderr, log), true, StandardCharsets.UTF_8));
    List<Call> calls = Collections.synchronizedList(new ArrayList<>());
    AtomicInteger exceptions = new AtomicInteger();
    long restartedAt;
    FailOpenGate gate;
    try (RedisGate redis =
        RedisGate.connect(RedisGateConfig.builder(server.url()).policy(policy).build())) {
      gate =
          FailOpenGate.around(redis)
              .probeInterval(Duration.ofMillis(200))
              .logInterval(Duration.ofSeconds(1))
              .build();
      AtomicBoolean running = new AtomicBoolean(true);
      ExecutorService callers = Executors.newFixedThreadPool(4);
      List<Future<?>> ends = new ArrayList<>();
      for (int i = 0; i < 4; i++) {
        String tenant = "tenant-" + i;
        ends.add(
            callers.submit(
                () -> {
                  while (running.get()) {
                    try {
                      Admission answer = gate.admit(tenant, "P1", Cost.requests(1));
                      boolean gated =
                          !(answer instanceof Admission.Admitted a) || !a.grant().failedOpen();
                      calls.add(new Call(System.nanoTime(), gated));
                      if (answer instanceof Admission.Admitted a) {
                        gate.release(a.grant(), Cost.requests(1));
                      }
                      Thread.sleep(5);
                    } catch (InterruptedException e) {
                      return;
                    } catch (RuntimeException e) {
                      exceptions.incrementAndGet();
                    }
                  }
                }));
      }
      Thread.sleep(1_500);
      server.stop();
      long stoppedAt = System.nanoTime();
      Thread.sleep(2_000);
      server.start();
      restartedAt = System.nanoTime();
      Thread.sleep(3_000);
      running.set(false);
      callers.shutdown();
      assertThat(callers.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
      for (Future<?> end : ends) {
        end.get(); // rethrows what ended a caller
      }

      assertThat(exceptions.get()).as("exceptions that reached a caller").isZero();
      long ungatedWhileDown =
          calls.stream()
              .filter(
                  c ->
                      c.nanos() > stoppedAt + 300_000_000L && c.nanos() < restartedAt && !c.gated())
              .count();
      assertThat(ungatedWhileDown)
          .as("calls that proceeded while Redis was down")
          .isGreaterThan(200);
      assertThat(gate.failures()).isPositive();
      assertThat(gate.ungatedDecisions()).isGreaterThanOrEqualTo(ungatedWhileDown);
    } finally {
      System.setErr(stderr);
      server.stop();
    }
    long firstGated =
        calls.stream()
            .filter(c -> c.nanos() > restartedAt && c.gated())
            .mapToLong(Call::nanos)
            .min()
            .orElseThrow();
    assertThat((firstGated - restartedAt) / 1e9).as("seconds until gating resumed").isLessThan(2.0);
    long lastSecondUngated =
        calls.stream().filter(c -> c.nanos() > restartedAt + 2_000_000_000L && !c.gated()).count();
    assertThat(lastSecondUngated).as("ungated calls from 2 s after the restart").isZero();

    String text = log.toString(StandardCharsets.UTF_8);
    long warnings = text.lines().filter(l -> l.contains("unavailable")).count();
    assertThat(warnings).as("warnings (one per log interval, not one per call)").isBetween(1L, 4L);
    assertThat(gate.ungatedDecisions()).isGreaterThan(50 * warnings);
  }

  /** Copies what is written to two streams. */
  private static final class Tee extends OutputStream {
    private final OutputStream a;
    private final OutputStream b;

    Tee(OutputStream a, OutputStream b) {
      this.a = a;
      this.b = b;
    }

    @Override
    public synchronized void write(int c) throws java.io.IOException {
      a.write(c);
      b.write(c);
    }

    @Override
    public synchronized void write(byte[] bytes, int off, int len) throws java.io.IOException {
      a.write(bytes, off, len);
      b.write(bytes, off, len);
    }
  }
}
