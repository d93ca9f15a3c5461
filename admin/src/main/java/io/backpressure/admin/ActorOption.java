package io.backpressure.admin;

import io.backpressure.core.AuditEntry;
import io.backpressure.core.InvalidPolicyException;
import picocli.CommandLine.Option;

/** {@code --actor}: who makes a change, for the target's audit trail. */
final class ActorOption {
  @Option(
      names = "--actor",
      paramLabel = "NAME",
      defaultValue = "${sys:user.name}",
      description = "Who makes the change, for the audit trail (default: ${DEFAULT-VALUE}).")
  String actor;

  /** The actor, checked (non-blank, at most 128 characters) before Redis is touched. */
  String actor() {
    try {
      AuditEntry.checkActor(actor);
      return actor;
    } catch (InvalidPolicyException e) {
      throw AdminException.invalid("--actor", e.getMessage());
    }
  }
}
