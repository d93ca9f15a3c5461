package io.backpressure.temporal;

import static org.assertj.core.api.Assertions.assertThat;

import io.backpressure.core.Admission;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowStub;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * P5, slot release on deny, on a worker with one activity slot: a noisy tenant's call is deferred
 * for 5 s, and a P1 call submitted right after it is served at once, whichever way the deferral is
 * waited out. The naive baseline, which sleeps its backoff on the slot, makes the P1 call wait.
 */
class SlotReleaseIT extends HarnessTest {
  private static final Duration DELTA = Duration.ofSeconds(5);

  private record Outcome(long p1Millis, long noisyWaitMillis, int maxRunning) {}

  private static Outcome noisyThenP1(
      BackpressureInterceptor interceptor, Class<? extends ChatWorkflow> workflow, String noisyMode)
      throws InterruptedException {
    String queue = "q-" + UUID.randomUUID();
    RecordingGate gate = new RecordingGate(ScriptedGate.deferOnce("noisy", DELTA));
    Probe probe = new Probe();
    harness.start(
        queue,
        interceptor,
        1,
        new ChatActivitiesImpl(ActivityGate.of(gate), probe, DELTA),
        workflow);

    ChatWorkflow noisy = harness.workflow(queue, "noisy-" + UUID.randomUUID());
    long noisyStart = System.currentTimeMillis();
    WorkflowClient.start(noisy::chat, new ChatInput("noisy", "P3", 0, noisyMode), 60_000L);
    Harness.await(
        "the noisy call to hold or give back its slot",
        Duration.ofSeconds(10),
        () -> gate.deferrals() == 1 || probe.running() == 1);

    long p1Start = System.nanoTime();
    String p1 =
        harness
            .workflow(queue, "p1-" + UUID.randomUUID())
            .chat(ChatInput.ok("quiet", "P1"), 60_000L);
    long p1Millis = (System.nanoTime() - p1Start) / 1_000_000;
    assertThat(p1).isEqualTo("ok:quiet");

    assertThat(WorkflowStub.fromTyped(noisy).getResult(String.class)).isEqualTo("ok:noisy");
    long noisyWait =
        gate.attemptsOf("noisy").stream()
                .filter(a -> a.admission() instanceof Admission.Admitted)
                .mapToLong(RecordingGate.Attempt::atMillis)
                .findFirst()
                .orElse(System.currentTimeMillis())
            - noisyStart;
    return new Outcome(p1Millis, noisyWait, probe.maxRunning());
  }

  /**
   * The P1 call does not wait out the noisy call's deferral: it finishes in under half of Δ (on an
   * idle machine in about 100 ms), where a backoff slept on the slot makes it take Δ.
   */
  private static void assertSlotReleased(Outcome outcome) {
    assertThat(outcome.p1Millis()).isLessThan(DELTA.toMillis() / 2);
    assertThat(outcome.noisyWaitMillis()).isGreaterThanOrEqualTo(DELTA.toMillis());
    assertThat(outcome.maxRunning()).isEqualTo(1);
  }

  @Test
  void explicitHelperFreesTheSlotDuringTheDeferral() throws InterruptedException {
    assertSlotReleased(noisyThenP1(BackpressureInterceptor.create(), Workflows.Helper.class, "ok"));
  }

  @Test
  void transparentInterceptorFreesTheSlotDuringTheDeferral() throws InterruptedException {
    assertSlotReleased(
        noisyThenP1(
            BackpressureInterceptor.transparent(Duration.ofMinutes(1)),
            Workflows.Plain.class,
            "ok"));
  }

  @Test
  void serverRetryTimerFreesTheSlotDuringTheDeferral() throws InterruptedException {
    assertSlotReleased(noisyThenP1(null, Workflows.Plain.class, "ok"));
  }

  @Test
  void aBackoffSleptOnTheSlotMakesTheP1CallWait() throws InterruptedException {
    Outcome outcome = noisyThenP1(null, Workflows.Plain.class, "naive");
    assertThat(outcome.p1Millis()).isGreaterThanOrEqualTo(DELTA.toMillis() - 1_000);
  }
}
