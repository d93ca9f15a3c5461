package io.backpressure.temporal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.backpressure.core.Admission;
import io.temporal.api.enums.v1.EventType;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowStub;
import io.temporal.common.WorkflowExecutionHistory;
import io.temporal.testing.WorkflowReplayer;
import io.temporal.worker.WorkerFactory;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** A deferral is a durable timer: it survives a worker restart, and its history replays. */
class DurabilityTest extends HarnessTest {
  private static List<EventType> eventTypes(WorkflowExecutionHistory history) {
    return history.getEvents().stream().map(e -> e.getEventType()).toList();
  }

  @Test
  void aDeferredWorkflowSurvivesAWorkerRestartAndItsHistoryReplays() throws Exception {
    RecordingGate gate = new RecordingGate(ScriptedGate.deferOnce("t", Duration.ofSeconds(3)));

    String queue = "q-" + UUID.randomUUID();
    String workflowId = "durable-" + UUID.randomUUID();
    WorkerFactory first =
        harness.start(
            queue,
            BackpressureInterceptor.create(),
            1,
            new ChatActivitiesImpl(ActivityGate.of(gate), new Probe(), Duration.ZERO),
            Workflows.Helper.class);
    ChatWorkflow workflow = harness.workflow(queue, workflowId);
    WorkflowClient.start(workflow::chat, ChatInput.ok("t", "P1"), 60_000L);
    Harness.await(
        "the deferral's timer",
        Duration.ofSeconds(20),
        () ->
            eventTypes(harness.client().fetchHistory(workflowId))
                .contains(EventType.EVENT_TYPE_TIMER_STARTED));

    Harness.kill(first);
    Probe second = new Probe();
    harness.start(
        queue,
        BackpressureInterceptor.create(),
        1,
        new ChatActivitiesImpl(ActivityGate.of(gate), second, Duration.ZERO),
        Workflows.Helper.class);

    assertThat(WorkflowStub.fromTyped(workflow).getResult(String.class)).isEqualTo("ok:t");
    assertThat(second.started()).isEqualTo(1);
    List<RecordingGate.Attempt> attempts = gate.attemptsOf("t");
    assertThat(attempts).hasSize(2);
    String booking = ((Admission.Deferred) attempts.get(0).admission()).booking();
    assertThat(attempts.get(1).request().booking()).isEqualTo(booking);
    assertThat(attempts.get(1).admission()).isInstanceOf(Admission.Admitted.class);
    assertThat(attempts.get(1).atMillis() - attempts.get(0).atMillis())
        .isGreaterThanOrEqualTo(3_000);

    WorkflowExecutionHistory history = harness.client().fetchHistory(workflowId);
    assertThat(eventTypes(history))
        .contains(EventType.EVENT_TYPE_TIMER_FIRED, EventType.EVENT_TYPE_MARKER_RECORDED);
    assertThatCode(
            () ->
                WorkflowReplayer.replayWorkflowExecution(
                    history,
                    harness.replayer(BackpressureInterceptor.create(), Workflows.Helper.class)))
        .doesNotThrowAnyException();
  }

  @Test
  void aTransparentDeferralReplaysOnlyWithTheInterceptor() throws Exception {
    RecordingGate gate = new RecordingGate(ScriptedGate.deferOnce("t", Duration.ofMillis(200)));
    String queue = "q-" + UUID.randomUUID();
    String workflowId = "transparent-" + UUID.randomUUID();
    harness.start(
        queue,
        BackpressureInterceptor.transparent(Duration.ofMinutes(1)),
        1,
        new ChatActivitiesImpl(ActivityGate.of(gate), new Probe(), Duration.ZERO),
        Workflows.Plain.class);
    assertThat(harness.workflow(queue, workflowId).chat(ChatInput.ok("t", "P1"), 60_000L))
        .isEqualTo("ok:t");
    assertThat(gate.deferrals()).isEqualTo(1);

    WorkflowExecutionHistory history = harness.client().fetchHistory(workflowId);
    assertThat(eventTypes(history)).contains(EventType.EVENT_TYPE_TIMER_FIRED);
    assertThatCode(
            () ->
                WorkflowReplayer.replayWorkflowExecution(
                    history,
                    harness.replayer(
                        BackpressureInterceptor.transparent(Duration.ofMinutes(1)),
                        Workflows.Plain.class)))
        .doesNotThrowAnyException();
    // The replayer does check: without the interceptor the timer in the history is unexplained.
    assertThatThrownBy(
            () ->
                WorkflowReplayer.replayWorkflowExecution(
                    history, harness.replayer(null, Workflows.Plain.class)))
        .hasMessageContaining("NonDeterministicException");
  }

  @Test
  void turningTheInterceptorOnKeepsOldHistoriesReplayable() throws Exception {
    // Recorded without the interceptor: server-timed deferrals until the attempts ran out.
    RecordingGate gate = new RecordingGate(ScriptedGate.deferAlways("t", Duration.ofMillis(100)));
    String queue = "q-" + UUID.randomUUID();
    String workflowId = "old-" + UUID.randomUUID();
    harness.start(
        queue,
        null,
        1,
        new ChatActivitiesImpl(ActivityGate.of(gate), new Probe(), Duration.ZERO),
        Workflows.TwoAttempts.class);
    assertThat(harness.workflow(queue, workflowId).chat(ChatInput.ok("t", "P1"), 60_000L))
        .isEqualTo("failed:" + Backpressure.DEFERRED + ":RETRY_STATE_MAXIMUM_ATTEMPTS_REACHED");

    WorkflowExecutionHistory history = harness.client().fetchHistory(workflowId);
    assertThatCode(
            () ->
                WorkflowReplayer.replayWorkflowExecution(
                    history,
                    harness.replayer(
                        BackpressureInterceptor.transparent(Duration.ofMinutes(1)),
                        Workflows.TwoAttempts.class)))
        .doesNotThrowAnyException();
  }
}
