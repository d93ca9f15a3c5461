package io.backpressure.examples;

import static org.assertj.core.api.Assertions.assertThat;

import io.backpressure.core.Admission;
import io.backpressure.core.InMemoryGate;
import io.backpressure.core.Policy;
import io.backpressure.core.testing.RecordingGate;
import io.backpressure.examples.TemporalQuickstart.ChatInput;
import io.backpressure.examples.TemporalQuickstart.ChatWorkflow;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import io.temporal.client.WorkflowStub;
import io.temporal.testing.TestEnvironmentOptions;
import io.temporal.testing.TestWorkflowEnvironment;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Runs the README's Temporal example on Temporal's in-process test server, in real time. */
class TemporalQuickstartIT {

  @Test
  void deferredCallsWaitOnTimersAndAllComplete() throws Exception {
    Policy policy =
        Policy.builder("openai/gpt-4o")
            .requestsPerSecond(2)
            .tokensPerSecond(10_000)
            .priority("P1", 1)
            .build();
    RecordingGate gate = new RecordingGate(InMemoryGate.create(policy));
    TestWorkflowEnvironment env =
        TestWorkflowEnvironment.newInstance(
            TestEnvironmentOptions.newBuilder().setUseTimeskipping(false).build());
    try {
      TemporalQuickstart.startWorker(env.getWorkflowClient(), gate);
      List<WorkflowStub> runs = new ArrayList<>();
      for (int i = 0; i < 6; i++) {
        ChatWorkflow workflow =
            env.getWorkflowClient()
                .newWorkflowStub(
                    ChatWorkflow.class,
                    WorkflowOptions.newBuilder()
                        .setTaskQueue(TemporalQuickstart.TASK_QUEUE)
                        .setWorkflowExecutionTimeout(Duration.ofMinutes(1))
                        .build());
        WorkflowClient.start(workflow::chat, new ChatInput("tenant-" + i, "P1", "Say hello", 64L));
        runs.add(WorkflowStub.fromTyped(workflow));
      }
      for (int i = 0; i < runs.size(); i++) {
        assertThat(runs.get(i).getResult(1, TimeUnit.MINUTES, String.class))
            .isEqualTo("reply to tenant-" + i + ": Say hello");
      }
    } finally {
      env.close();
    }
    // Six calls at once against a burst of two requests: some were deferred, and every one came
    // back and was admitted once.
    assertThat(gate.admissions()).filteredOn(a -> a instanceof Admission.Admitted).hasSize(6);
    assertThat(gate.admissions()).filteredOn(a -> a instanceof Admission.Deferred).isNotEmpty();
    assertThat(gate.releases()).filteredOn(RecordingGate.Release::applied).hasSize(6);
  }
}
