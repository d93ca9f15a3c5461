package io.backpressure.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.backpressure.core.Admission;
import io.backpressure.core.AdmissionRequest;
import io.backpressure.core.Cost;
import io.backpressure.core.Policy;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * A slow Redis is not an unavailable one: a real server held with {@code CLIENT PAUSE} while four
 * callers admit through a {@link ResilientRedisGate} with the default command timeout (1 s). A
 * pause of 400 ms is waited out: every call is answered by Redis, and the gate never switches to
 * its fail mode. A pause of 2.5 s, longer than the timeout, does switch it (calls are then decided
 * locally, none fails), and the calls are decided by Redis again once the pause is over.
 */
class SlowCommandIT {
  private static final int CALLERS = 4;

  /** A cap far above what four callers admit, so that every answer is an admission. */
  private static final Policy POLICY =
      Policy.builder("slow/model")
          .dimension("requests", 100_000, 100_000)
          .priority("P1", 1)
          .build();

  /** What the callers saw. */
  private static final class Calls {
    final AtomicInteger started = new AtomicInteger();
    final AtomicInteger answered = new AtomicInteger();
    final AtomicInteger exceptions = new AtomicInteger();
    final AtomicLong longestNanos = new AtomicLong();
  }

  @Test
  void aPauseShorterThanTheCommandTimeoutIsWaitedOutOnRedis() throws Exception {
    TestRedis server = TestRedis.owned();
    try (ResilientRedisGate gate = open(server)) {
      assertThat(gate.awaitConnected(Duration.ofSeconds(30))).as("connected").isTrue();
      Calls calls = new Calls();
      admitWhile(
          gate,
          calls,
          () -> {
            Thread.sleep(300);
            pause(server, 400);
            Thread.sleep(400 + 600);
          });

      System.out.printf(
          "CLIENT PAUSE 400 ms: %d calls, longest %d ms, %d fail-mode decisions%n",
          calls.started.get(),
          TimeUnit.NANOSECONDS.toMillis(calls.longestNanos.get()),
          gate.failOpen().ungatedDecisions());
      assertThat(calls.longestNanos.get())
          .as("the longest admission: some call waited out the pause")
          .isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(200));
      assertThat(calls.exceptions.get()).as("exceptions that reached a caller").isZero();
      assertThat(calls.answered.get()).as("calls answered").isEqualTo(calls.started.get());
      assertThat(gate.failOpen().failures()).as("commands that failed").isZero();
      assertThat(gate.failOpen().ungatedDecisions()).as("fail-mode decisions").isZero();
    } finally {
      server.stop();
    }
  }

  @Test
  void aPauseLongerThanTheCommandTimeoutSwitchesToTheFailModeUntilItEnds() throws Exception {
    TestRedis server = TestRedis.owned();
    try (ResilientRedisGate gate = open(server)) {
      assertThat(gate.awaitConnected(Duration.ofSeconds(30))).as("connected").isTrue();
      AtomicBoolean resumed = new AtomicBoolean();
      Calls calls = new Calls();
      admitWhile(
          gate,
          calls,
          () -> {
            Thread.sleep(300);
            pause(server, 2_500);
            Thread.sleep(2_500);
            // Until, after the pause, calls go on for 300 ms with none decided by the fail mode;
            // 10 s at most.
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (!resumed.get() && System.nanoTime() < deadline) {
              long ungated = gate.failOpen().ungatedDecisions();
              int started = calls.started.get();
              Thread.sleep(300);
              resumed.set(
                  calls.started.get() > started + CALLERS
                      && gate.failOpen().ungatedDecisions() == ungated);
            }
          });

      System.out.printf(
          "CLIENT PAUSE 2.5 s: %d calls, %d failed commands, %d fail-mode decisions%n",
          calls.started.get(), gate.failOpen().failures(), gate.failOpen().ungatedDecisions());
      assertThat(gate.failOpen().failures()).as("commands that timed out").isPositive();
      assertThat(gate.failOpen().ungatedDecisions()).as("fail-mode (LOCAL) decisions").isPositive();
      assertThat(calls.exceptions.get()).as("exceptions that reached a caller").isZero();
      assertThat(calls.answered.get()).as("calls answered").isEqualTo(calls.started.get());
      assertThat(resumed)
          .as("300 ms of calls after the pause with no fail-mode decision: back on Redis")
          .isTrue();
    } finally {
      server.stop();
    }
  }

  private static ResilientRedisGate open(TestRedis server) {
    RedisGateConfig config =
        RedisGateConfig.builder(server.url())
            .policy(POLICY)
            .keyPrefix(TestRedis.freshPrefix())
            .build();
    assertThat(config.commandTimeout()).as("the default command timeout").hasSeconds(1);
    return ResilientRedisGate.open(config);
  }

  /** What a test does while the callers admit. */
  private interface During {
    void run() throws Exception;
  }

  /**
   * {@value #CALLERS} callers admit and release through {@code gate}, counting in {@code calls},
   * while {@code during} runs.
   */
  private static void admitWhile(ResilientRedisGate gate, Calls calls, During during)
      throws Exception {
    AtomicBoolean running = new AtomicBoolean(true);
    ExecutorService callers = Executors.newFixedThreadPool(CALLERS);
    List<Future<?>> ends = new ArrayList<>();
    try {
      for (int i = 0; i < CALLERS; i++) {
        String tenant = "tenant-" + i;
        ends.add(callers.submit(() -> admitUntilStopped(gate, tenant, running, calls)));
      }
      during.run();
    } finally {
      running.set(false);
      callers.shutdown();
    }
    assertThat(callers.awaitTermination(30, TimeUnit.SECONDS)).as("callers ended").isTrue();
    for (Future<?> end : ends) {
      end.get(); // rethrows what ended a caller
    }
  }

  private static void admitUntilStopped(
      ResilientRedisGate gate, String tenant, AtomicBoolean running, Calls calls) {
    while (running.get()) {
      calls.started.incrementAndGet();
      long start = System.nanoTime();
      try {
        Admission answer = gate.admit(AdmissionRequest.of(tenant, "P1", Cost.requests(1)));
        long end = System.nanoTime();
        calls.longestNanos.accumulateAndGet(end - start, Math::max);
        calls.answered.incrementAndGet();
        if (answer instanceof Admission.Admitted admitted) {
          gate.release(admitted.grant(), Cost.requests(1));
        }
        Thread.sleep(5);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      } catch (RuntimeException e) {
        calls.exceptions.incrementAndGet();
      }
    }
  }

  /**
   * Sends {@code CLIENT PAUSE millis ALL} on a connection of its own: every client's commands wait
   * until the pause ends (this connection's reply comes at once).
   */
  private static void pause(TestRedis server, long millis) throws IOException {
    URI uri = URI.create(server.url());
    try (Socket socket = new Socket(InetAddress.getByName(uri.getHost()), uri.getPort())) {
      OutputStream out = socket.getOutputStream();
      out.write(("CLIENT PAUSE " + millis + " ALL\r\n").getBytes(StandardCharsets.US_ASCII));
      out.flush();
      InputStream in = socket.getInputStream();
      byte[] reply = new byte[5];
      int n = in.readNBytes(reply, 0, reply.length);
      assertThat(new String(reply, 0, n, StandardCharsets.US_ASCII))
          .as("CLIENT PAUSE's reply")
          .startsWith("+OK");
    }
  }
}
