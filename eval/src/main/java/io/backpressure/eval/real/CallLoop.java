package io.backpressure.eval.real;

import io.temporal.workflow.WorkflowInterface;
import io.temporal.workflow.WorkflowMethod;

/**
 * One closed-loop workflow of a workload (or one open-loop arrival, with {@code calls = 1}): makes
 * its calls one after another, each through the {@link UpstreamActivities} activity.
 */
@WorkflowInterface
public interface CallLoop {

  /** Runs the loop; returns the number of calls that ended with a 200. */
  @WorkflowMethod
  long run(LoopInput input);
}
