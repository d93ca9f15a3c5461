package io.backpressure.temporal;

import io.temporal.activity.ActivityInterface;

@ActivityInterface
public interface ChatActivities {

  /**
   * A provider call under the gate; in mode {@code naive}, the baseline instead: no gate, and told
   * to back off, it sleeps on its worker slot before calling.
   */
  String chat(ChatInput input);

  /** A provider call under the gate, tenant and class taken from the activity's Priority. */
  String chatByPriority(String mode);
}
