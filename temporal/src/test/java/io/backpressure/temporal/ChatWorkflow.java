package io.backpressure.temporal;

import io.temporal.workflow.WorkflowInterface;
import io.temporal.workflow.WorkflowMethod;

@WorkflowInterface
public interface ChatWorkflow {

  /**
   * Runs the workflow's gated call(s).
   *
   * @return the reply, or {@code failed:<failure type>:<retry state>} when the call failed
   */
  @WorkflowMethod
  String chat(ChatInput input, long maxWaitMillis);
}
