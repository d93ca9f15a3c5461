package io.backpressure.temporal;

import io.temporal.workflow.WorkflowInterface;
import io.temporal.workflow.WorkflowMethod;

/**
 * A closed loop: one gated call after another, as a workflow of the evaluation's workloads does.
 */
@WorkflowInterface
public interface LoopWorkflow {

  @WorkflowMethod
  int run(ChatInput input, int calls);

  /** Plain activity calls: waits out deferrals with the transparent interceptor or the server. */
  final class Impl implements LoopWorkflow {
    @Override
    public int run(ChatInput input, int calls) {
      ChatActivities activities = Workflows.activities();
      for (int i = 0; i < calls; i++) {
        activities.chat(input);
      }
      return calls;
    }
  }
}
