package io.backpressure.admin;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.backpressure.core.AuditEntry;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code admin audit}: the target's audit trail, oldest first: who changed what, when, and the
 * value before and after.
 */
@Command(
    name = "audit",
    mixinStandardHelpOptions = true,
    description = {
      "Shows a target's audit trail, oldest first: when, who, what, before and after.",
      "Example: admin audit --target openai/gpt-4o --last 20"
    })
final class AuditCommand extends TargetCommand {
  @Option(
      names = "--last",
      paramLabel = "N",
      defaultValue = "100",
      converter = StrictNumbers.Whole.class,
      description = "How many of the newest entries, 1 to 1000 (default: ${DEFAULT-VALUE}).")
  int last;

  @Override
  public Integer call() {
    return Output.run(
        spec,
        connection.json,
        () -> {
          if (last < 1 || last > 1_000) {
            throw AdminException.invalid(
                "--last", "--last must be a whole number in [1, 1000], got " + last);
          }
          return connection.withStore(
              target,
              store -> {
                List<AuditEntry> trail = store.auditTrail();
                List<AuditEntry> shown =
                    trail.subList(Math.max(0, trail.size() - last), trail.size());
                StringBuilder text = new StringBuilder();
                ObjectNode json = Output.JSON.createObjectNode();
                json.put("target", target);
                ArrayNode entries = json.putArray("entries");
                for (AuditEntry entry : shown) {
                  text.append(entry.line()).append(System.lineSeparator());
                  entries.add(json(entry));
                }
                if (shown.isEmpty()) {
                  text.append(target)
                      .append(": no change audited yet")
                      .append(System.lineSeparator());
                }
                return new Output.Result(text.toString(), json);
              });
        });
  }

  /** One entry as JSON: {@code at, actor, target, action, field, from, to}. */
  static ObjectNode json(AuditEntry entry) {
    ObjectNode json = Output.JSON.createObjectNode();
    json.put("at", entry.at().toString());
    json.put("actor", entry.actor());
    json.put("target", entry.target());
    json.put("action", entry.action());
    json.put("field", entry.field());
    json.put("from", entry.before());
    json.put("to", entry.after());
    return json;
  }
}
